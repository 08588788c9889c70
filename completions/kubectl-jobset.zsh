#compdef kubectl-jobset

autoload -U is-at-least

_kubectl-jobset() {
    typeset -A opt_args
    typeset -a _arguments_options
    local ret=1

    if is-at-least 5.2; then
        _arguments_options=(-s -S -C)
    else
        _arguments_options=(-s -C)
    fi

    local context curcontext="$curcontext" state line
    _arguments "${_arguments_options[@]}" : \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
":: :_kubectl-jobset_commands" \
"*::: :->kubectl-jobset" \
&& ret=0
    case $state in
    (kubectl-jobset)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:kubectl-jobset-command-$line[1]:"
        case $line[1] in
            (list)
_arguments "${_arguments_options[@]}" : \
'-l+[Label selector, e.g. \`team=ml,tier!=dev\`]:SELECTOR:_default' \
'--selector=[Label selector, e.g. \`team=ml,tier!=dev\`]:SELECTOR:_default' \
'-o+[Output format\: table, wide, json, yaml, name, jsonpath=TEMPLATE or custom-columns=HEADER\:PATH,... (kubectl'\''s JSONPath)]:FORMAT:(table wide json yaml name jsonpath= custom-columns=)' \
'--output=[Output format\: table, wide, json, yaml, name, jsonpath=TEMPLATE or custom-columns=HEADER\:PATH,... (kubectl'\''s JSONPath)]:FORMAT:(table wide json yaml name jsonpath= custom-columns=)' \
'--sort-by=[Sort by a JSONPath, e.g. \`.metadata.creationTimestamp\` or \`{.status.restarts}\`]:PATH:_default' \
'*-L+[Add a column for each of these labels (\`-L team,tier\`, or repeated)]:LABEL:_default' \
'*--label-columns=[Add a column for each of these labels (\`-L team,tier\`, or repeated)]:LABEL:_default' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'-A[Look in every namespace]' \
'--all-namespaces[Look in every namespace]' \
'--no-headers[Omit the table header]' \
'--show-labels[Add a LABELS column with every label]' \
'-w[After the first output, watch and print changes as they happen (as \`kubectl get -w\`)]' \
'--watch[After the first output, watch and print changes as they happen (as \`kubectl get -w\`)]' \
'--output-watch-events[With --watch\: start each change with its event type (ADDED, MODIFIED, DELETED)]' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help]' \
'--help[Print help]' \
'-V[Print version]' \
'--version[Print version]' \
'*::names -- JobSet names (`NAME` or `jobset/NAME`); none means all in the namespace:_default' \
&& ret=0
;;
(ls)
_arguments "${_arguments_options[@]}" : \
'-l+[Label selector, e.g. \`team=ml,tier!=dev\`]:SELECTOR:_default' \
'--selector=[Label selector, e.g. \`team=ml,tier!=dev\`]:SELECTOR:_default' \
'-o+[Output format\: table, wide, json, yaml, name, jsonpath=TEMPLATE or custom-columns=HEADER\:PATH,... (kubectl'\''s JSONPath)]:FORMAT:(table wide json yaml name jsonpath= custom-columns=)' \
'--output=[Output format\: table, wide, json, yaml, name, jsonpath=TEMPLATE or custom-columns=HEADER\:PATH,... (kubectl'\''s JSONPath)]:FORMAT:(table wide json yaml name jsonpath= custom-columns=)' \
'--sort-by=[Sort by a JSONPath, e.g. \`.metadata.creationTimestamp\` or \`{.status.restarts}\`]:PATH:_default' \
'*-L+[Add a column for each of these labels (\`-L team,tier\`, or repeated)]:LABEL:_default' \
'*--label-columns=[Add a column for each of these labels (\`-L team,tier\`, or repeated)]:LABEL:_default' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'-A[Look in every namespace]' \
'--all-namespaces[Look in every namespace]' \
'--no-headers[Omit the table header]' \
'--show-labels[Add a LABELS column with every label]' \
'-w[After the first output, watch and print changes as they happen (as \`kubectl get -w\`)]' \
'--watch[After the first output, watch and print changes as they happen (as \`kubectl get -w\`)]' \
'--output-watch-events[With --watch\: start each change with its event type (ADDED, MODIFIED, DELETED)]' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help]' \
'--help[Print help]' \
'-V[Print version]' \
'--version[Print version]' \
'*::names -- JobSet names (`NAME` or `jobset/NAME`); none means all in the namespace:_default' \
&& ret=0
;;
(get)
_arguments "${_arguments_options[@]}" : \
'-l+[Label selector, e.g. \`team=ml,tier!=dev\`]:SELECTOR:_default' \
'--selector=[Label selector, e.g. \`team=ml,tier!=dev\`]:SELECTOR:_default' \
'-o+[Output format\: table, wide, json, yaml, name, jsonpath=TEMPLATE or custom-columns=HEADER\:PATH,... (kubectl'\''s JSONPath)]:FORMAT:(table wide json yaml name jsonpath= custom-columns=)' \
'--output=[Output format\: table, wide, json, yaml, name, jsonpath=TEMPLATE or custom-columns=HEADER\:PATH,... (kubectl'\''s JSONPath)]:FORMAT:(table wide json yaml name jsonpath= custom-columns=)' \
'--sort-by=[Sort by a JSONPath, e.g. \`.metadata.creationTimestamp\` or \`{.status.restarts}\`]:PATH:_default' \
'*-L+[Add a column for each of these labels (\`-L team,tier\`, or repeated)]:LABEL:_default' \
'*--label-columns=[Add a column for each of these labels (\`-L team,tier\`, or repeated)]:LABEL:_default' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'-A[Look in every namespace]' \
'--all-namespaces[Look in every namespace]' \
'--no-headers[Omit the table header]' \
'--show-labels[Add a LABELS column with every label]' \
'-w[After the first output, watch and print changes as they happen (as \`kubectl get -w\`)]' \
'--watch[After the first output, watch and print changes as they happen (as \`kubectl get -w\`)]' \
'--output-watch-events[With --watch\: start each change with its event type (ADDED, MODIFIED, DELETED)]' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help]' \
'--help[Print help]' \
'-V[Print version]' \
'--version[Print version]' \
'*::names -- JobSet names (`NAME` or `jobset/NAME`); none means all in the namespace:_default' \
&& ret=0
;;
(diff)
_arguments "${_arguments_options[@]}" : \
'-l+[Label selector, e.g. \`team=ml,tier!=dev\`]:SELECTOR:_default' \
'--selector=[Label selector, e.g. \`team=ml,tier!=dev\`]:SELECTOR:_default' \
'-o+[A machine-readable report instead of unified diffs]:OUTPUT:(json yaml)' \
'--output=[A machine-readable report instead of unified diffs]:OUTPUT:(json yaml)' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'-A[Look in every namespace]' \
'--all-namespaces[Look in every namespace]' \
'(-o --output)--summary[One line per JobSet\: attempt, outdated/total Jobs, status]' \
'--record[Also record the history seen (ControllerRevisions), as restart, rollback and set image do. Without it this command only reads\: the recorder keeps history complete, and --record is the fallback where none runs. KUBECTL_JOBSET_RECORD=1 sets it]' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'*::names -- JobSet names (`NAME` or `jobset/NAME`); none means all in the namespace:_default' \
&& ret=0
;;
(restart)
_arguments "${_arguments_options[@]}" : \
'-l+[Label selector, e.g. \`team=ml,tier!=dev\`]:SELECTOR:_default' \
'--selector=[Label selector, e.g. \`team=ml,tier!=dev\`]:SELECTOR:_default' \
'--reason=[Why\: recorded in the RestartingJobSet condition and an Event on the JobSet]:TEXT:_default' \
'--expect-attempt=[Restart only if the JobSet is at this attempt; if it is already past it, report "already restarted" and succeed (idempotent scripts)]:N:_default' \
'--dry-run=[Change nothing\: \`client\` prints what would happen, \`server\` also runs admission]::MODE:((none\:""
client\:"Print what would happen; send nothing"
server\:"Send the patch with dryRun=All, so admission runs; store nothing"))' \
'--wait=[Wait until every Job of the new attempt exists (\`--wait=ready\`\: is ready)]::CONDITION:((created\:"Every Job of the new attempt exists"
ready\:"Every Job of the new attempt is ready"))' \
'--timeout=[How long --wait waits (e.g. 90s, 5m)]:DURATION:_default' \
'--job=[Restart one Job, REPLICATEDJOB/INDEX, instead of the whole JobSet (needs the controller'\''s RestartJob feature)]:REPLICATEDJOB/INDEX:_default' \
'-o+[Print the restarted JobSets instead of a sentence each]:OUTPUT:(json yaml name)' \
'--output=[Print the restarted JobSets instead of a sentence each]:OUTPUT:(json yaml name)' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'-A[Look in every namespace]' \
'--all-namespaces[Look in every namespace]' \
'--count-towards-max[Count this restart towards failurePolicy.maxRestarts (refused if it would exceed it)]' \
'--force[Restart even while Jobs of an earlier attempt still exist]' \
'--if-outdated[Only restart JobSets whose running Jobs differ from the spec (see \`diff\`)]' \
'-y[Do not ask for confirmation when restarting several JobSets]' \
'--yes[Do not ask for confirmation when restarting several JobSets]' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'*::names -- JobSet names (`NAME` or `jobset/NAME`); none means all in the namespace:_default' \
&& ret=0
;;
(history)
_arguments "${_arguments_options[@]}" : \
'-l+[Label selector, e.g. \`team=ml,tier!=dev\`]:SELECTOR:_default' \
'--selector=[Label selector, e.g. \`team=ml,tier!=dev\`]:SELECTOR:_default' \
'(--diff)--revision=[Print the templates of revision N (negative counts back\: -1 is the newest)]:N:_default' \
'--diff=[Show what changed between two revisions, e.g. --diff 1,2 or --diff -2,-1]:A,B:_default' \
'-o+[Output format]:OUTPUT:(table wide json yaml name)' \
'--output=[Output format]:OUTPUT:(table wide json yaml name)' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'-A[Look in every namespace]' \
'--all-namespaces[Look in every namespace]' \
'--no-headers[Omit the table header]' \
'-w[After the first output, watch and print changes as they happen (as \`kubectl get -w\`)]' \
'--watch[After the first output, watch and print changes as they happen (as \`kubectl get -w\`)]' \
'--output-watch-events[With --watch\: start each change with its event type (ADDED, MODIFIED, DELETED)]' \
'--record[Also record the history seen (ControllerRevisions), as restart, rollback and set image do. Without it this command only reads\: the recorder keeps history complete, and --record is the fallback where none runs. KUBECTL_JOBSET_RECORD=1 sets it]' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'*::names -- JobSet names (`NAME` or `jobset/NAME`); none means all in the namespace:_default' \
&& ret=0
;;
(rollback)
_arguments "${_arguments_options[@]}" : \
'--to-revision=[The revision to go back to (negative counts back\: -1 is the newest). Default\: the revision before the spec'\''s]:N:_default' \
'--reason=[Why\: recorded as the change cause (default\: "rollback to revision N")]:TEXT:_default' \
'--dry-run=[Change nothing\: \`client\` shows the diff, \`server\` also runs admission (webhooks, CEL)]::MODE:((none\:""
client\:"Print what would happen; send nothing"
server\:"Send the patch with dryRun=All, so admission runs; store nothing"))' \
'--wait=[With --restart (or --now)\: wait until every Job of the new attempt exists (\`=ready\`\: is ready); under Kueue, through its re-admission]::CONDITION:((created\:"Every Job of the new attempt exists"
ready\:"Every Job of the new attempt is ready"))' \
'--timeout=[How long --wait waits]:DURATION:_default' \
'-o+[Print the rolled-back JobSet instead of a sentence]:OUTPUT:(json yaml name)' \
'--output=[Print the rolled-back JobSet instead of a sentence]:OUTPUT:(json yaml name)' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'-y[Do not ask for confirmation]' \
'--yes[Do not ask for confirmation]' \
'--restart[Restart the JobSet once the rollback has landed, so it takes effect now]' \
'--handover[Where the controller forbids template changes (upstream JobSet)\: recreate the JobSet with the templates and hand its running Jobs over to it, untouched; resumable]' \
'(--handover)--now[For a JobSet Kueue has admitted (otherwise refused\: Kueue would stop it and resume the old template)\: roll back, let Kueue stop it, and restart it on the rolled-back template at once. Its Pods stop and its Workload queues again. Implies --restart]' \
'(--handover --now --restart)--at-next-restart[Leave the spec as it is and stage the rollback for the JobSet'\''s next restart (a revision of its own)\: \`restart\` applies it, or the recorder at a natural restart]' \
'--force[With --restart (or --now)\: restart even while the previous restart is still in progress]' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':name -- The JobSet:_default' \
&& ret=0
;;
(undo)
_arguments "${_arguments_options[@]}" : \
'--to-revision=[The revision to go back to (negative counts back\: -1 is the newest). Default\: the revision before the spec'\''s]:N:_default' \
'--reason=[Why\: recorded as the change cause (default\: "rollback to revision N")]:TEXT:_default' \
'--dry-run=[Change nothing\: \`client\` shows the diff, \`server\` also runs admission (webhooks, CEL)]::MODE:((none\:""
client\:"Print what would happen; send nothing"
server\:"Send the patch with dryRun=All, so admission runs; store nothing"))' \
'--wait=[With --restart (or --now)\: wait until every Job of the new attempt exists (\`=ready\`\: is ready); under Kueue, through its re-admission]::CONDITION:((created\:"Every Job of the new attempt exists"
ready\:"Every Job of the new attempt is ready"))' \
'--timeout=[How long --wait waits]:DURATION:_default' \
'-o+[Print the rolled-back JobSet instead of a sentence]:OUTPUT:(json yaml name)' \
'--output=[Print the rolled-back JobSet instead of a sentence]:OUTPUT:(json yaml name)' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'-y[Do not ask for confirmation]' \
'--yes[Do not ask for confirmation]' \
'--restart[Restart the JobSet once the rollback has landed, so it takes effect now]' \
'--handover[Where the controller forbids template changes (upstream JobSet)\: recreate the JobSet with the templates and hand its running Jobs over to it, untouched; resumable]' \
'(--handover)--now[For a JobSet Kueue has admitted (otherwise refused\: Kueue would stop it and resume the old template)\: roll back, let Kueue stop it, and restart it on the rolled-back template at once. Its Pods stop and its Workload queues again. Implies --restart]' \
'(--handover --now --restart)--at-next-restart[Leave the spec as it is and stage the rollback for the JobSet'\''s next restart (a revision of its own)\: \`restart\` applies it, or the recorder at a natural restart]' \
'--force[With --restart (or --now)\: restart even while the previous restart is still in progress]' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':name -- The JobSet:_default' \
&& ret=0
;;
(set)
_arguments "${_arguments_options[@]}" : \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help]' \
'--help[Print help]' \
'-V[Print version]' \
'--version[Print version]' \
":: :_kubectl-jobset__subcmd__set_commands" \
"*::: :->set" \
&& ret=0

    case $state in
    (set)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:kubectl-jobset-set-command-$line[1]:"
        case $line[1] in
            (image)
_arguments "${_arguments_options[@]}" : \
'-l+[Select JobSets by label, e.g. \`team=ml\`]:SELECTOR:_default' \
'--selector=[Select JobSets by label, e.g. \`team=ml\`]:SELECTOR:_default' \
'--reason=[Why\: recorded as the change cause of the new revision (default\: the command)]:TEXT:_default' \
'--dry-run=[Change nothing\: \`client\` shows the diff, \`server\` also runs admission (webhooks, CEL)]::MODE:((none\:""
client\:"Print what would happen; send nothing"
server\:"Send the patch with dryRun=All, so admission runs; store nothing"))' \
'--wait=[With --restart (or --now)\: wait until every Job of the new attempt exists (\`=ready\`\: is ready); under Kueue, through its re-admission]::CONDITION:((created\:"Every Job of the new attempt exists"
ready\:"Every Job of the new attempt is ready"))' \
'--timeout=[How long --wait waits]:DURATION:_default' \
'-o+[Print the changed JobSets instead of a sentence each]:OUTPUT:(json yaml name)' \
'--output=[Print the changed JobSets instead of a sentence each]:OUTPUT:(json yaml name)' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'-A[Select JobSets in every namespace (with -l)]' \
'--all-namespaces[Select JobSets in every namespace (with -l)]' \
'-y[Do not ask for confirmation]' \
'--yes[Do not ask for confirmation]' \
'(-l --selector -A --all-namespaces)--handover[Where the controller forbids template changes (upstream JobSet)\: recreate the JobSet with the new templates and hand its running Jobs over to it, untouched; resumable. One JobSet, by name]' \
'--restart[Restart each changed JobSet once its patch has landed, so the change takes effect now]' \
'(--handover)--now[For a JobSet Kueue has admitted (otherwise refused\: Kueue would stop it and resume the old template)\: change it, let Kueue stop it, and restart it on the new template at once. Its Pods stop and its Workload queues again. Implies --restart]' \
'(--handover --now --restart)--at-next-restart[Leave the spec as it is and stage the change for the JobSet'\''s next restart (a revision of its own)\: \`restart\` applies it, or the recorder at a natural restart. For JobSets Kueue has admitted, whose Pods a change in place would stop]' \
'--force[With --restart (or --now)\: restart even while the previous restart is still in progress]' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'*::args -- JobSet names (`NAME` or `jobset/NAME`), then one or more `\[REPLICATEDJOB/\]CONTAINER=IMAGE`:_default' \
&& ret=0
;;
(env)
_arguments "${_arguments_options[@]}" : \
'-c+[The containers to change\: \`\[REPLICATEDJOB/\]CONTAINER\` (\`*\` for all, the default)]:CONTAINER:_default' \
'--containers=[The containers to change\: \`\[REPLICATEDJOB/\]CONTAINER\` (\`*\` for all, the default)]:CONTAINER:_default' \
'*-e+[A variable to set or remove (\`KEY=VALUE\`, \`KEY-\`), as a flag; repeatable]:KEY=VALUE:_default' \
'*--env=[A variable to set or remove (\`KEY=VALUE\`, \`KEY-\`), as a flag; repeatable]:KEY=VALUE:_default' \
'-l+[Select JobSets by label, e.g. \`team=ml\`]:SELECTOR:_default' \
'--selector=[Select JobSets by label, e.g. \`team=ml\`]:SELECTOR:_default' \
'--reason=[Why\: recorded as the change cause of the new revision (default\: the command)]:TEXT:_default' \
'--dry-run=[Change nothing\: \`client\` shows the diff, \`server\` also runs admission (webhooks, CEL)]::MODE:((none\:""
client\:"Print what would happen; send nothing"
server\:"Send the patch with dryRun=All, so admission runs; store nothing"))' \
'--wait=[With --restart (or --now)\: wait until every Job of the new attempt exists (\`=ready\`\: is ready); under Kueue, through its re-admission]::CONDITION:((created\:"Every Job of the new attempt exists"
ready\:"Every Job of the new attempt is ready"))' \
'--timeout=[How long --wait waits]:DURATION:_default' \
'-o+[Print the changed JobSets instead of a sentence each]:OUTPUT:(json yaml name)' \
'--output=[Print the changed JobSets instead of a sentence each]:OUTPUT:(json yaml name)' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'-A[Select JobSets in every namespace (with -l)]' \
'--all-namespaces[Select JobSets in every namespace (with -l)]' \
'-y[Do not ask for confirmation]' \
'--yes[Do not ask for confirmation]' \
'(-l --selector -A --all-namespaces)--handover[Where the controller forbids template changes (upstream JobSet)\: recreate the JobSet with the new templates and hand its running Jobs over to it, untouched; resumable. One JobSet, by name]' \
'--restart[Restart each changed JobSet once its patch has landed, so the change takes effect now]' \
'(--handover)--now[For a JobSet Kueue has admitted (otherwise refused\: Kueue would stop it and resume the old template)\: change it, let Kueue stop it, and restart it on the new template at once. Its Pods stop and its Workload queues again. Implies --restart]' \
'(--handover --now --restart)--at-next-restart[Leave the spec as it is and stage the change for the JobSet'\''s next restart (a revision of its own)\: \`restart\` applies it, or the recorder at a natural restart. For JobSets Kueue has admitted, whose Pods a change in place would stop]' \
'--force[With --restart (or --now)\: restart even while the previous restart is still in progress]' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'*::args -- JobSet names (`NAME` or `jobset/NAME`), then `KEY=VALUE` to set and `KEY-` to remove:_default' \
&& ret=0
;;
(resources)
_arguments "${_arguments_options[@]}" : \
'-c+[The containers to change\: \`\[REPLICATEDJOB/\]CONTAINER\` (\`*\` for all, the default)]:CONTAINER:_default' \
'--containers=[The containers to change\: \`\[REPLICATEDJOB/\]CONTAINER\` (\`*\` for all, the default)]:CONTAINER:_default' \
'--limits=[Resource limits, e.g. \`cpu=2,memory=4Gi\` (0 removes one)]:LIST:_default' \
'--requests=[Resource requests, e.g. \`cpu=1,memory=2Gi\` (0 removes one). Under Kueue, a JobSet whose ClusterQueue could never admit the new requests is refused]:LIST:_default' \
'-l+[Select JobSets by label, e.g. \`team=ml\`]:SELECTOR:_default' \
'--selector=[Select JobSets by label, e.g. \`team=ml\`]:SELECTOR:_default' \
'--reason=[Why\: recorded as the change cause of the new revision (default\: the command)]:TEXT:_default' \
'--dry-run=[Change nothing\: \`client\` shows the diff, \`server\` also runs admission (webhooks, CEL)]::MODE:((none\:""
client\:"Print what would happen; send nothing"
server\:"Send the patch with dryRun=All, so admission runs; store nothing"))' \
'--wait=[With --restart (or --now)\: wait until every Job of the new attempt exists (\`=ready\`\: is ready); under Kueue, through its re-admission]::CONDITION:((created\:"Every Job of the new attempt exists"
ready\:"Every Job of the new attempt is ready"))' \
'--timeout=[How long --wait waits]:DURATION:_default' \
'-o+[Print the changed JobSets instead of a sentence each]:OUTPUT:(json yaml name)' \
'--output=[Print the changed JobSets instead of a sentence each]:OUTPUT:(json yaml name)' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'-A[Select JobSets in every namespace (with -l)]' \
'--all-namespaces[Select JobSets in every namespace (with -l)]' \
'-y[Do not ask for confirmation]' \
'--yes[Do not ask for confirmation]' \
'(-l --selector -A --all-namespaces)--handover[Where the controller forbids template changes (upstream JobSet)\: recreate the JobSet with the new templates and hand its running Jobs over to it, untouched; resumable. One JobSet, by name]' \
'--restart[Restart each changed JobSet once its patch has landed, so the change takes effect now]' \
'(--handover)--now[For a JobSet Kueue has admitted (otherwise refused\: Kueue would stop it and resume the old template)\: change it, let Kueue stop it, and restart it on the new template at once. Its Pods stop and its Workload queues again. Implies --restart]' \
'(--handover --now --restart)--at-next-restart[Leave the spec as it is and stage the change for the JobSet'\''s next restart (a revision of its own)\: \`restart\` applies it, or the recorder at a natural restart. For JobSets Kueue has admitted, whose Pods a change in place would stop]' \
'--force[With --restart (or --now)\: restart even while the previous restart is still in progress]' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'*::names -- JobSet names (`NAME` or `jobset/NAME`):_default' \
&& ret=0
;;
(update-strategy)
_arguments "${_arguments_options[@]}" : \
'-l+[Select JobSets by label, e.g. \`team=ml\`]:SELECTOR:_default' \
'--selector=[Select JobSets by label, e.g. \`team=ml\`]:SELECTOR:_default' \
'--dry-run=[Change nothing\: \`client\` says what would change, \`server\` also runs admission]::MODE:((none\:""
client\:"Print what would happen; send nothing"
server\:"Send the patch with dryRun=All, so admission runs; store nothing"))' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'-A[Select JobSets in every namespace (with -l)]' \
'--all-namespaces[Select JobSets in every namespace (with -l)]' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'*::args -- JobSet names (`NAME` or `jobset/NAME`), then the strategy:_default' \
&& ret=0
;;
        esac
    ;;
esac
;;
(rollout)
_arguments "${_arguments_options[@]}" : \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
":: :_kubectl-jobset__subcmd__rollout_commands" \
"*::: :->rollout" \
&& ret=0

    case $state in
    (rollout)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:kubectl-jobset-rollout-command-$line[1]:"
        case $line[1] in
            (start)
_arguments "${_arguments_options[@]}" : \
'-l+[Select JobSets by label, e.g. \`team=ml\`]:SELECTOR:_default' \
'--selector=[Select JobSets by label, e.g. \`team=ml\`]:SELECTOR:_default' \
'*--image=[An image to set, \`\[REPLICATEDJOB/\]CONTAINER=IMAGE\` (as \`set image\`); repeatable]:CONTAINER=IMAGE:_default' \
'*-e+[A variable to set or remove, \`KEY=VALUE\` or \`KEY-\` (as \`set env\`); repeatable]:KEY=VALUE:_default' \
'*--env=[A variable to set or remove, \`KEY=VALUE\` or \`KEY-\` (as \`set env\`); repeatable]:KEY=VALUE:_default' \
'-c+[The containers --env changes\: \`\[REPLICATEDJOB/\]CONTAINER\` (\`*\` for all, the default)]:CONTAINER:_default' \
'--containers=[The containers --env changes\: \`\[REPLICATEDJOB/\]CONTAINER\` (\`*\` for all, the default)]:CONTAINER:_default' \
'(--image -e --env)--to-revision=[Or put back each JobSet'\''s own history revision N (as \`rollback --to-revision\`)]:N:_default' \
'--canary=[Canaries\: how many (running JobSets first), or which (comma-separated names)]:N|NAMES:_default' \
'--canary-restart=[How the canaries take the change\: restarted now, or at their natural restart]:WHEN:(now natural)' \
'--gate=[The health gate after each batch\: \`ready=DURATION\` (every Job of the new attempt ready, no failure, for that long) or \`succeeded\` (the new attempt completes)]:GATE:_default' \
'--batch-size=[JobSets per batch after the canaries\: a number, or a percentage (\`25%\`)]:N|P%:_default' \
'--restart=[How batches take the change\: restarted now, or left to their next restart (\`strategy\`\: their update strategy, or a natural restart)]:WHEN:(now strategy)' \
'--max-restarting=[At most this many JobSets restarting (restarted, not ready yet) at once]:N:_default' \
'--reason=[Why\: recorded as each JobSet'\''s change cause (default\: the rollout and its change)]:TEXT:_default' \
'--timeout=[How long to drive before leaving it (it goes on with \`resume\`); 0\: until done]:DURATION:_default' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'-A[Select JobSets in every namespace (with -l)]' \
'--all-namespaces[Select JobSets in every namespace (with -l)]' \
'--detach[Only write the journal; leave the driving to a later \`rollout resume\`]' \
'-y[Do not ask for confirmation]' \
'--yes[Do not ask for confirmation]' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'*::args -- The rollout'\''s name, then the JobSets (`NAME` or `jobset/NAME`), unless -l selects them:_default' \
&& ret=0
;;
(status)
_arguments "${_arguments_options[@]}" : \
'-o+[The rollout as one object (spec and status)]:OUTPUT:(json yaml)' \
'--output=[The rollout as one object (spec and status)]:OUTPUT:(json yaml)' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'-w[Print again as it moves, until it completes or is aborted]' \
'--watch[Print again as it moves, until it completes or is aborted]' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help]' \
'--help[Print help]' \
'-V[Print version]' \
'--version[Print version]' \
':name -- The rollout'\''s name:_default' \
&& ret=0
;;
(list)
_arguments "${_arguments_options[@]}" : \
'-o+[]:OUTPUT:(json yaml)' \
'--output=[]:OUTPUT:(json yaml)' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help]' \
'--help[Print help]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(ls)
_arguments "${_arguments_options[@]}" : \
'-o+[]:OUTPUT:(json yaml)' \
'--output=[]:OUTPUT:(json yaml)' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help]' \
'--help[Print help]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(pause)
_arguments "${_arguments_options[@]}" : \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help]' \
'--help[Print help]' \
'-V[Print version]' \
'--version[Print version]' \
':name -- The rollout'\''s name:_default' \
&& ret=0
;;
(resume)
_arguments "${_arguments_options[@]}" : \
'--timeout=[How long to drive before leaving it (it goes on with the next \`resume\`); 0\: until done]:DURATION:_default' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--detach[Only write the journal; leave the driving to a later \`rollout resume\`]' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help]' \
'--help[Print help]' \
'-V[Print version]' \
'--version[Print version]' \
':name -- The rollout'\''s name:_default' \
&& ret=0
;;
(abort)
_arguments "${_arguments_options[@]}" : \
'--timeout=[How long to drive before leaving it (it goes on with the next \`resume\`); 0\: until done]:DURATION:_default' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--detach[Only write the journal; leave the driving to a later \`rollout resume\`]' \
'--restart[Also restart the rolled-back JobSets the rollout had restarted, so they run their old template again now]' \
'-y[Do not ask for confirmation]' \
'--yes[Do not ask for confirmation]' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help]' \
'--help[Print help]' \
'-V[Print version]' \
'--version[Print version]' \
':name -- The rollout'\''s name:_default' \
&& ret=0
;;
        esac
    ;;
esac
;;
(status)
_arguments "${_arguments_options[@]}" : \
'-w+[Watch until done (\`--watch=false\`\: look once and say where it stands)]::BOOL:(true false)' \
'--watch=[Watch until done (\`--watch=false\`\: look once and say where it stands)]::BOOL:(true false)' \
'--timeout=[How long to watch before giving up (0\: no limit)]:DURATION:_default' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--record[Also record the history seen (ControllerRevisions), as restart, rollback and set image do. Without it this command only reads\: the recorder keeps history complete, and --record is the fallback where none runs. KUBECTL_JOBSET_RECORD=1 sets it]' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':name -- The JobSet:_default' \
&& ret=0
;;
(tree)
_arguments "${_arguments_options[@]}" : \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help]' \
'--help[Print help]' \
'-V[Print version]' \
'--version[Print version]' \
':name -- The JobSet:_default' \
&& ret=0
;;
(suspend)
_arguments "${_arguments_options[@]}" : \
'-l+[Label selector, e.g. \`team=ml,tier!=dev\`]:SELECTOR:_default' \
'--selector=[Label selector, e.g. \`team=ml,tier!=dev\`]:SELECTOR:_default' \
'--dry-run=[Change nothing\: \`client\` shows the diff, \`server\` also runs admission (webhooks, CEL)]::MODE:((none\:""
client\:"Print what would happen; send nothing"
server\:"Send the patch with dryRun=All, so admission runs; store nothing"))' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'-A[Look in every namespace]' \
'--all-namespaces[Look in every namespace]' \
'-y[Do not ask for confirmation]' \
'--yes[Do not ask for confirmation]' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'*::names -- JobSet names (`NAME` or `jobset/NAME`); none means all in the namespace:_default' \
&& ret=0
;;
(resume)
_arguments "${_arguments_options[@]}" : \
'-l+[Label selector, e.g. \`team=ml,tier!=dev\`]:SELECTOR:_default' \
'--selector=[Label selector, e.g. \`team=ml,tier!=dev\`]:SELECTOR:_default' \
'--dry-run=[Change nothing\: \`client\` shows the diff, \`server\` also runs admission (webhooks, CEL)]::MODE:((none\:""
client\:"Print what would happen; send nothing"
server\:"Send the patch with dryRun=All, so admission runs; store nothing"))' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'-A[Look in every namespace]' \
'--all-namespaces[Look in every namespace]' \
'-y[Do not ask for confirmation]' \
'--yes[Do not ask for confirmation]' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'*::names -- JobSet names (`NAME` or `jobset/NAME`); none means all in the namespace:_default' \
&& ret=0
;;
(admission)
_arguments "${_arguments_options[@]}" : \
'--dry-run=[With --apply, change nothing\: \`client\` says what would change, \`server\` sends it with dryRun=All]::MODE:((none\:""
client\:"Print what would happen; send nothing"
server\:"Send the patch with dryRun=All, so admission runs; store nothing"))' \
'--webhook-configuration=[The ValidatingWebhookConfiguration of upstream'\''s JobSet webhook]:NAME:_default' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--apply[Create the opt-in policy and patch the webhook configuration]' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(recorder)
_arguments "${_arguments_options[@]}" : \
'-l+[Only JobSets matching this label selector, e.g. \`team=ml\`]:SELECTOR:_default' \
'--selector=[Only JobSets matching this label selector, e.g. \`team=ml\`]:SELECTOR:_default' \
'--lease-namespace=[Namespace of the recorder'\''s Lease (commands read it from KUBECTL_JOBSET_RECORDER_NAMESPACE)]:NAMESPACE:_default' \
'--lease-duration=[How long the Lease holds without renewal (renewed every third of it)]:DURATION:_default' \
'--metrics-addr=[Where to serve /healthz, /readyz and /metrics (HOST\:PORT, \:PORT, or 0 for none). Also as controller-runtime names it\: --metrics-bind-address, and --health-probe-bind-address (the probes share the metrics address)]:ADDRESS:_default' \
'--metrics-bind-address=[Where to serve /healthz, /readyz and /metrics (HOST\:PORT, \:PORT, or 0 for none). Also as controller-runtime names it\: --metrics-bind-address, and --health-probe-bind-address (the probes share the metrics address)]:ADDRESS:_default' \
'--health-probe-bind-address=[Where to serve /healthz, /readyz and /metrics (HOST\:PORT, \:PORT, or 0 for none). Also as controller-runtime names it\: --metrics-bind-address, and --health-probe-bind-address (the probes share the metrics address)]:ADDRESS:_default' \
'--history-retention=[How long a deleted JobSet'\''s history is kept before it is pruned (0\: at once)]:DURATION:_default' \
'--default-update-strategy=[The update strategy of JobSets without the kubectl-jobset.io/update-strategy annotation\: RecordOnly (history only, never restarted), Never, Opportunistic or Immediate]:STRATEGY:_default' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'-A[Record JobSets in every namespace (default\: the namespace of -n or the context)]' \
'--all-namespaces[Record JobSets in every namespace (default\: the namespace of -n or the context)]' \
'--leader-elect[Run as one of several replicas\: only the holder of the Lease records]' \
'--no-update-strategies[Do not enforce update strategies (record history only; the recorder then needs no write access to jobsets/status)]' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(version)
_arguments "${_arguments_options[@]}" : \
'-o+[Print as json or yaml]:OUTPUT:(json yaml)' \
'--output=[Print as json or yaml]:OUTPUT:(json yaml)' \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--client[The plugin'\''s version only (no cluster is contacted)]' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help]' \
'--help[Print help]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(completion)
_arguments "${_arguments_options[@]}" : \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':shell:((bash\:""
zsh\:""
fish\:""
powershell\:""
kubectl\:"The \`kubectl_complete-jobset\` shim that kubectl runs to complete plugin arguments"))' \
&& ret=0
;;
(__complete)
_arguments "${_arguments_options[@]}" : \
'--kubeconfig=[Path to the kubeconfig file (default\: \$KUBECONFIG, then ~/.kube/config)]:PATH:_files' \
'--context=[The kubeconfig context to use]:NAME:_default' \
'--cluster=[The kubeconfig cluster to use]:NAME:_default' \
'--user=[The kubeconfig user to use]:NAME:_default' \
'-s+[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--server=[The API server'\''s address, overriding the kubeconfig'\''s (e.g. https\://10.0.0.1\:6443)]:URL:_default' \
'--token=[A bearer token to authenticate with, instead of the kubeconfig user'\''s credentials]:TOKEN:_default' \
'--tls-server-name=[Server name to verify the API server'\''s certificate against]:NAME:_default' \
'-n+[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--namespace=[Namespace to work in (default\: the context'\''s namespace). Given twice, the last wins, as in kubectl]:NAMESPACE:_default' \
'--as=[Username to impersonate for the operation]:USER:_default' \
'*--as-group=[Group to impersonate for the operation (repeat for several)]:GROUP:_default' \
'--as-uid=[UID to impersonate for the operation]:UID:_default' \
'--request-timeout=[How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)]:DURATION:_default' \
'--history-limit=[Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec'\''s and the running one are always kept]:N:_default' \
'-v+[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--v=[Log verbosity, as kubectl'\''s -v\: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted]:LEVEL:_default' \
'--insecure-skip-tls-verify[Skip verification of the API server'\''s certificate (insecure)]' \
'--no-color[Do not colour output (also\: the NO_COLOR environment variable)]' \
'-h[Print help]' \
'--help[Print help]' \
'-V[Print version]' \
'--version[Print version]' \
'*::words -- The words typed after `kubectl jobset`; the last one is being completed:_default' \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
":: :_kubectl-jobset__subcmd__help_commands" \
"*::: :->help" \
&& ret=0

    case $state in
    (help)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:kubectl-jobset-help-command-$line[1]:"
        case $line[1] in
            (list)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(diff)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(restart)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(history)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(rollback)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(set)
_arguments "${_arguments_options[@]}" : \
":: :_kubectl-jobset__subcmd__help__subcmd__set_commands" \
"*::: :->set" \
&& ret=0

    case $state in
    (set)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:kubectl-jobset-help-set-command-$line[1]:"
        case $line[1] in
            (image)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(env)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(resources)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(update-strategy)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
(rollout)
_arguments "${_arguments_options[@]}" : \
":: :_kubectl-jobset__subcmd__help__subcmd__rollout_commands" \
"*::: :->rollout" \
&& ret=0

    case $state in
    (rollout)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:kubectl-jobset-help-rollout-command-$line[1]:"
        case $line[1] in
            (start)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(status)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(list)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(pause)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(resume)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(abort)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
(status)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(tree)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(suspend)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(resume)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(admission)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(recorder)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(version)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(completion)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(__complete)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
        esac
    ;;
esac
}

(( $+functions[_kubectl-jobset_commands] )) ||
_kubectl-jobset_commands() {
    local commands; commands=(
'list:List JobSets with their restart attempt, Job counts and status' \
'ls:List JobSets with their restart attempt, Job counts and status' \
'get:List JobSets with their restart attempt, Job counts and status' \
'diff:Show which running Jobs use an outdated template, and what differs' \
'restart:Restart JobSets now, so a pending template takes effect' \
'history:Show a JobSet'\''s template revisions, and which restart attempts ran each' \
'rollback:Put an earlier revision'\''s templates back into the JobSet spec' \
'undo:Put an earlier revision'\''s templates back into the JobSet spec' \
'set:Change JobSet templates in place, as \`kubectl set\` does (\`set image\`)' \
'rollout:Roll one template change out over a fleet of JobSets in steps\: canaries first, then batches, each behind a health gate; with status, pause, resume and abort' \
'status:Follow a JobSet'\''s current restart attempt until it runs the spec'\''s templates and is ready, like \`kubectl rollout status\`' \
'tree:Show one JobSet as a tree\: its replicatedJobs, their Jobs (restart attempt, template revision, readiness, outdated or not) and the Jobs'\'' Pods, like \`kubectl argo rollouts get rollout\`. Reads only' \
'suspend:Suspend JobSets (spec.suspend\: true)\: the controller suspends their Jobs, whose Pods stop, as \`kubectl rollout pause\` pauses a Deployment' \
'resume:Resume suspended JobSets (spec.suspend\: false)\: their existing Jobs start' \
'admission:Check how the cluster treats JobSet template updates, and opt in on a stock install' \
'recorder:Keep every JobSet'\''s history as it happens\: a controller that runs until stopped' \
'version:Print the plugin'\''s version, and what the cluster runs\: Kubernetes, the JobSet API and controller, Kueue, and the recorder' \
'completion:Print a shell completion script (bash, zsh, fish, powershell), or the kubectl completion shim (\`kubectl\`)' \
'__complete:Answer kubectl'\''s plugin completion protocol (used by kubectl_complete-jobset)' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'kubectl-jobset commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd____complete_commands] )) ||
_kubectl-jobset__subcmd____complete_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset __complete commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__admission_commands] )) ||
_kubectl-jobset__subcmd__admission_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset admission commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__completion_commands] )) ||
_kubectl-jobset__subcmd__completion_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset completion commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__diff_commands] )) ||
_kubectl-jobset__subcmd__diff_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset diff commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help_commands] )) ||
_kubectl-jobset__subcmd__help_commands() {
    local commands; commands=(
'list:List JobSets with their restart attempt, Job counts and status' \
'diff:Show which running Jobs use an outdated template, and what differs' \
'restart:Restart JobSets now, so a pending template takes effect' \
'history:Show a JobSet'\''s template revisions, and which restart attempts ran each' \
'rollback:Put an earlier revision'\''s templates back into the JobSet spec' \
'set:Change JobSet templates in place, as \`kubectl set\` does (\`set image\`)' \
'rollout:Roll one template change out over a fleet of JobSets in steps\: canaries first, then batches, each behind a health gate; with status, pause, resume and abort' \
'status:Follow a JobSet'\''s current restart attempt until it runs the spec'\''s templates and is ready, like \`kubectl rollout status\`' \
'tree:Show one JobSet as a tree\: its replicatedJobs, their Jobs (restart attempt, template revision, readiness, outdated or not) and the Jobs'\'' Pods, like \`kubectl argo rollouts get rollout\`. Reads only' \
'suspend:Suspend JobSets (spec.suspend\: true)\: the controller suspends their Jobs, whose Pods stop, as \`kubectl rollout pause\` pauses a Deployment' \
'resume:Resume suspended JobSets (spec.suspend\: false)\: their existing Jobs start' \
'admission:Check how the cluster treats JobSet template updates, and opt in on a stock install' \
'recorder:Keep every JobSet'\''s history as it happens\: a controller that runs until stopped' \
'version:Print the plugin'\''s version, and what the cluster runs\: Kubernetes, the JobSet API and controller, Kueue, and the recorder' \
'completion:Print a shell completion script (bash, zsh, fish, powershell), or the kubectl completion shim (\`kubectl\`)' \
'__complete:Answer kubectl'\''s plugin completion protocol (used by kubectl_complete-jobset)' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'kubectl-jobset help commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd____complete_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd____complete_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help __complete commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__admission_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__admission_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help admission commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__completion_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__completion_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help completion commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__diff_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__diff_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help diff commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__help_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__help_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help help commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__history_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__history_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help history commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__list_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__list_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help list commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__recorder_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__recorder_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help recorder commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__restart_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__restart_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help restart commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__resume_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__resume_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help resume commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__rollback_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__rollback_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help rollback commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__rollout_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__rollout_commands() {
    local commands; commands=(
'start:Start a rollout\: ROLLOUT (JOBSET... | -l SELECTOR \[-A\]) --image/--env ...' \
'status:Show where a rollout stands\: its phase, batch, gate and every JobSet'\''s state' \
'list:List the rollouts in the namespace' \
'pause:Pause a rollout\: its driver stops after the step in progress' \
'resume:Resume a paused rollout (or drive one nobody drives), in the foreground' \
'abort:Abort a rollout\: put back the templates of every JobSet it changed (guarded\: an edit made since by someone else is kept); --restart also restarts those it restarted' \
    )
    _describe -t commands 'kubectl-jobset help rollout commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__rollout__subcmd__abort_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__rollout__subcmd__abort_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help rollout abort commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__rollout__subcmd__list_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__rollout__subcmd__list_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help rollout list commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__rollout__subcmd__pause_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__rollout__subcmd__pause_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help rollout pause commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__rollout__subcmd__resume_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__rollout__subcmd__resume_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help rollout resume commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__rollout__subcmd__start_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__rollout__subcmd__start_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help rollout start commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__rollout__subcmd__status_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__rollout__subcmd__status_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help rollout status commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__set_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__set_commands() {
    local commands; commands=(
'image:Set container images in JobSet templates\: NAME... \[REPLICATEDJOB/\]CONTAINER=IMAGE...' \
'env:Set or remove environment variables in JobSet templates\: NAME... KEY=VALUE... KEY-...' \
'resources:Set resource limits and requests in JobSet templates\: NAME... --limits/--requests LIST' \
'update-strategy:Set JobSets'\'' update strategy\: NAME... STRATEGY (Never, Opportunistic or Immediate)' \
    )
    _describe -t commands 'kubectl-jobset help set commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__set__subcmd__env_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__set__subcmd__env_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help set env commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__set__subcmd__image_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__set__subcmd__image_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help set image commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__set__subcmd__resources_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__set__subcmd__resources_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help set resources commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__set__subcmd__update-strategy_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__set__subcmd__update-strategy_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help set update-strategy commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__status_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__status_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help status commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__suspend_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__suspend_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help suspend commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__tree_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__tree_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help tree commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__help__subcmd__version_commands] )) ||
_kubectl-jobset__subcmd__help__subcmd__version_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset help version commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__history_commands] )) ||
_kubectl-jobset__subcmd__history_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset history commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__list_commands] )) ||
_kubectl-jobset__subcmd__list_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset list commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__recorder_commands] )) ||
_kubectl-jobset__subcmd__recorder_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset recorder commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__restart_commands] )) ||
_kubectl-jobset__subcmd__restart_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset restart commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__resume_commands] )) ||
_kubectl-jobset__subcmd__resume_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset resume commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__rollback_commands] )) ||
_kubectl-jobset__subcmd__rollback_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset rollback commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__rollout_commands] )) ||
_kubectl-jobset__subcmd__rollout_commands() {
    local commands; commands=(
'start:Start a rollout\: ROLLOUT (JOBSET... | -l SELECTOR \[-A\]) --image/--env ...' \
'status:Show where a rollout stands\: its phase, batch, gate and every JobSet'\''s state' \
'list:List the rollouts in the namespace' \
'ls:List the rollouts in the namespace' \
'pause:Pause a rollout\: its driver stops after the step in progress' \
'resume:Resume a paused rollout (or drive one nobody drives), in the foreground' \
'abort:Abort a rollout\: put back the templates of every JobSet it changed (guarded\: an edit made since by someone else is kept); --restart also restarts those it restarted' \
    )
    _describe -t commands 'kubectl-jobset rollout commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__rollout__subcmd__abort_commands] )) ||
_kubectl-jobset__subcmd__rollout__subcmd__abort_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset rollout abort commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__rollout__subcmd__list_commands] )) ||
_kubectl-jobset__subcmd__rollout__subcmd__list_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset rollout list commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__rollout__subcmd__pause_commands] )) ||
_kubectl-jobset__subcmd__rollout__subcmd__pause_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset rollout pause commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__rollout__subcmd__resume_commands] )) ||
_kubectl-jobset__subcmd__rollout__subcmd__resume_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset rollout resume commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__rollout__subcmd__start_commands] )) ||
_kubectl-jobset__subcmd__rollout__subcmd__start_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset rollout start commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__rollout__subcmd__status_commands] )) ||
_kubectl-jobset__subcmd__rollout__subcmd__status_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset rollout status commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__set_commands] )) ||
_kubectl-jobset__subcmd__set_commands() {
    local commands; commands=(
'image:Set container images in JobSet templates\: NAME... \[REPLICATEDJOB/\]CONTAINER=IMAGE...' \
'env:Set or remove environment variables in JobSet templates\: NAME... KEY=VALUE... KEY-...' \
'resources:Set resource limits and requests in JobSet templates\: NAME... --limits/--requests LIST' \
'update-strategy:Set JobSets'\'' update strategy\: NAME... STRATEGY (Never, Opportunistic or Immediate)' \
    )
    _describe -t commands 'kubectl-jobset set commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__set__subcmd__env_commands] )) ||
_kubectl-jobset__subcmd__set__subcmd__env_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset set env commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__set__subcmd__image_commands] )) ||
_kubectl-jobset__subcmd__set__subcmd__image_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset set image commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__set__subcmd__resources_commands] )) ||
_kubectl-jobset__subcmd__set__subcmd__resources_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset set resources commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__set__subcmd__update-strategy_commands] )) ||
_kubectl-jobset__subcmd__set__subcmd__update-strategy_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset set update-strategy commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__status_commands] )) ||
_kubectl-jobset__subcmd__status_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset status commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__suspend_commands] )) ||
_kubectl-jobset__subcmd__suspend_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset suspend commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__tree_commands] )) ||
_kubectl-jobset__subcmd__tree_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset tree commands' commands "$@"
}
(( $+functions[_kubectl-jobset__subcmd__version_commands] )) ||
_kubectl-jobset__subcmd__version_commands() {
    local commands; commands=()
    _describe -t commands 'kubectl-jobset version commands' commands "$@"
}

if [ "$funcstack[1]" = "_kubectl-jobset" ]; then
    _kubectl-jobset "$@"
else
    compdef _kubectl-jobset kubectl-jobset
fi
