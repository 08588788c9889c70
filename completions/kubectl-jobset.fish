# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kubectl_jobset_global_optspecs
    string join \n kubeconfig= context= cluster= user= s/server= token= tls-server-name= n/namespace= as= as-group= as-uid= request-timeout= insecure-skip-tls-verify no-color history-limit= v/v= h/help V/version
end

function __fish_kubectl_jobset_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kubectl_jobset_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kubectl_jobset_using_subcommand
    set -l cmd (__fish_kubectl_jobset_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -f -a "list" -d 'List JobSets with their restart attempt, Job counts and status'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -f -a "ls" -d 'List JobSets with their restart attempt, Job counts and status'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -f -a "get" -d 'List JobSets with their restart attempt, Job counts and status'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -f -a "diff" -d 'Show which running Jobs use an outdated template, and what differs'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -f -a "restart" -d 'Restart JobSets now, so a pending template takes effect'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -f -a "history" -d 'Show a JobSet\'s template revisions, and which restart attempts ran each'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -f -a "rollback" -d 'Put an earlier revision\'s templates back into the JobSet spec'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -f -a "undo" -d 'Put an earlier revision\'s templates back into the JobSet spec'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -f -a "set" -d 'Change JobSet templates in place, as `kubectl set` does (`set image`)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -f -a "rollout" -d 'Roll one template change out over a fleet of JobSets in steps: canaries first, then batches, each behind a health gate; with status, pause, resume and abort'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -f -a "status" -d 'Follow a JobSet\'s current restart attempt until it runs the spec\'s templates and is ready, like `kubectl rollout status`'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -f -a "tree" -d 'Show one JobSet as a tree: its replicatedJobs, their Jobs (restart attempt, template revision, readiness, outdated or not) and the Jobs\' Pods, like `kubectl argo rollouts get rollout`. Reads only'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -f -a "suspend" -d 'Suspend JobSets (spec.suspend: true): the controller suspends their Jobs, whose Pods stop, as `kubectl rollout pause` pauses a Deployment'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -f -a "resume" -d 'Resume suspended JobSets (spec.suspend: false): their existing Jobs start'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -f -a "admission" -d 'Check how the cluster treats JobSet template updates, and opt in on a stock install'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -f -a "recorder" -d 'Keep every JobSet\'s history as it happens: a controller that runs until stopped'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -f -a "version" -d 'Print the plugin\'s version, and what the cluster runs: Kubernetes, the JobSet API and controller, Kueue, and the recorder'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -f -a "completion" -d 'Print a shell completion script (bash, zsh, fish, powershell), or the kubectl completion shim (`kubectl`)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -f -a "__complete" -d 'Answer kubectl\'s plugin completion protocol (used by kubectl_complete-jobset)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -s l -l selector -d 'Label selector, e.g. `team=ml,tier!=dev`' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE or custom-columns=HEADER:PATH,... (kubectl\'s JSONPath)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''
jsonpath=\t''
custom-columns=\t''"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -l sort-by -d 'Sort by a JSONPath, e.g. `.metadata.creationTimestamp` or `{.status.restarts}`' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -s L -l label-columns -d 'Add a column for each of these labels (`-L team,tier`, or repeated)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -s A -l all-namespaces -d 'Look in every namespace'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -l no-headers -d 'Omit the table header'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -l show-labels -d 'Add a LABELS column with every label'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -s w -l watch -d 'After the first output, watch and print changes as they happen (as `kubectl get -w`)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -l output-watch-events -d 'With --watch: start each change with its event type (ADDED, MODIFIED, DELETED)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -s h -l help -d 'Print help'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand list" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -s l -l selector -d 'Label selector, e.g. `team=ml,tier!=dev`' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE or custom-columns=HEADER:PATH,... (kubectl\'s JSONPath)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''
jsonpath=\t''
custom-columns=\t''"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -l sort-by -d 'Sort by a JSONPath, e.g. `.metadata.creationTimestamp` or `{.status.restarts}`' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -s L -l label-columns -d 'Add a column for each of these labels (`-L team,tier`, or repeated)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -s A -l all-namespaces -d 'Look in every namespace'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -l no-headers -d 'Omit the table header'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -l show-labels -d 'Add a LABELS column with every label'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -s w -l watch -d 'After the first output, watch and print changes as they happen (as `kubectl get -w`)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -l output-watch-events -d 'With --watch: start each change with its event type (ADDED, MODIFIED, DELETED)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -s h -l help -d 'Print help'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand ls" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -s l -l selector -d 'Label selector, e.g. `team=ml,tier!=dev`' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE or custom-columns=HEADER:PATH,... (kubectl\'s JSONPath)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''
jsonpath=\t''
custom-columns=\t''"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -l sort-by -d 'Sort by a JSONPath, e.g. `.metadata.creationTimestamp` or `{.status.restarts}`' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -s L -l label-columns -d 'Add a column for each of these labels (`-L team,tier`, or repeated)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -s A -l all-namespaces -d 'Look in every namespace'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -l no-headers -d 'Omit the table header'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -l show-labels -d 'Add a LABELS column with every label'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -s w -l watch -d 'After the first output, watch and print changes as they happen (as `kubectl get -w`)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -l output-watch-events -d 'With --watch: start each change with its event type (ADDED, MODIFIED, DELETED)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -s h -l help -d 'Print help'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand get" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -s l -l selector -d 'Label selector, e.g. `team=ml,tier!=dev`' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -s o -l output -d 'A machine-readable report instead of unified diffs' -r -f -a "json\t''
yaml\t''"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -s A -l all-namespaces -d 'Look in every namespace'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -l summary -d 'One line per JobSet: attempt, outdated/total Jobs, status'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -l record -d 'Also record the history seen (ControllerRevisions), as restart, rollback and set image do. Without it this command only reads: the recorder keeps history complete, and --record is the fallback where none runs. KUBECTL_JOBSET_RECORD=1 sets it'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand diff" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -s l -l selector -d 'Label selector, e.g. `team=ml,tier!=dev`' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -l reason -d 'Why: recorded in the RestartingJobSet condition and an Event on the JobSet' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -l expect-attempt -d 'Restart only if the JobSet is at this attempt; if it is already past it, report "already restarted" and succeed (idempotent scripts)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -l dry-run -d 'Change nothing: `client` prints what would happen, `server` also runs admission' -r -f -a "none\t''
client\t'Print what would happen; send nothing'
server\t'Send the patch with dryRun=All, so admission runs; store nothing'"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -l wait -d 'Wait until every Job of the new attempt exists (`--wait=ready`: is ready)' -r -f -a "created\t'Every Job of the new attempt exists'
ready\t'Every Job of the new attempt is ready'"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -l timeout -d 'How long --wait waits (e.g. 90s, 5m)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -l job -d 'Restart one Job, REPLICATEDJOB/INDEX, instead of the whole JobSet (needs the controller\'s RestartJob feature)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -s o -l output -d 'Print the restarted JobSets instead of a sentence each' -r -f -a "json\t''
yaml\t''
name\t''"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -s A -l all-namespaces -d 'Look in every namespace'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -l count-towards-max -d 'Count this restart towards failurePolicy.maxRestarts (refused if it would exceed it)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -l force -d 'Restart even while Jobs of an earlier attempt still exist'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -l if-outdated -d 'Only restart JobSets whose running Jobs differ from the spec (see `diff`)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -s y -l yes -d 'Do not ask for confirmation when restarting several JobSets'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand restart" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -s l -l selector -d 'Label selector, e.g. `team=ml,tier!=dev`' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -l revision -d 'Print the templates of revision N (negative counts back: -1 is the newest)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -l diff -d 'Show what changed between two revisions, e.g. --diff 1,2 or --diff -2,-1' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -s o -l output -d 'Output format' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''
name\t''"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -s A -l all-namespaces -d 'Look in every namespace'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -l no-headers -d 'Omit the table header'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -s w -l watch -d 'After the first output, watch and print changes as they happen (as `kubectl get -w`)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -l output-watch-events -d 'With --watch: start each change with its event type (ADDED, MODIFIED, DELETED)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -l record -d 'Also record the history seen (ControllerRevisions), as restart, rollback and set image do. Without it this command only reads: the recorder keeps history complete, and --record is the fallback where none runs. KUBECTL_JOBSET_RECORD=1 sets it'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand history" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l to-revision -d 'The revision to go back to (negative counts back: -1 is the newest). Default: the revision before the spec\'s' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l reason -d 'Why: recorded as the change cause (default: "rollback to revision N")' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l dry-run -d 'Change nothing: `client` shows the diff, `server` also runs admission (webhooks, CEL)' -r -f -a "none\t''
client\t'Print what would happen; send nothing'
server\t'Send the patch with dryRun=All, so admission runs; store nothing'"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l wait -d 'With --restart (or --now): wait until every Job of the new attempt exists (`=ready`: is ready); under Kueue, through its re-admission' -r -f -a "created\t'Every Job of the new attempt exists'
ready\t'Every Job of the new attempt is ready'"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l timeout -d 'How long --wait waits' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -s o -l output -d 'Print the rolled-back JobSet instead of a sentence' -r -f -a "json\t''
yaml\t''
name\t''"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -s y -l yes -d 'Do not ask for confirmation'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l restart -d 'Restart the JobSet once the rollback has landed, so it takes effect now'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l handover -d 'Where the controller forbids template changes (upstream JobSet): recreate the JobSet with the templates and hand its running Jobs over to it, untouched; resumable'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l now -d 'For a JobSet Kueue has admitted (otherwise refused: Kueue would stop it and resume the old template): roll back, let Kueue stop it, and restart it on the rolled-back template at once. Its Pods stop and its Workload queues again. Implies --restart'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l at-next-restart -d 'Leave the spec as it is and stage the rollback for the JobSet\'s next restart (a revision of its own): `restart` applies it, or the recorder at a natural restart'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l force -d 'With --restart (or --now): restart even while the previous restart is still in progress'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollback" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l to-revision -d 'The revision to go back to (negative counts back: -1 is the newest). Default: the revision before the spec\'s' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l reason -d 'Why: recorded as the change cause (default: "rollback to revision N")' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l dry-run -d 'Change nothing: `client` shows the diff, `server` also runs admission (webhooks, CEL)' -r -f -a "none\t''
client\t'Print what would happen; send nothing'
server\t'Send the patch with dryRun=All, so admission runs; store nothing'"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l wait -d 'With --restart (or --now): wait until every Job of the new attempt exists (`=ready`: is ready); under Kueue, through its re-admission' -r -f -a "created\t'Every Job of the new attempt exists'
ready\t'Every Job of the new attempt is ready'"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l timeout -d 'How long --wait waits' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -s o -l output -d 'Print the rolled-back JobSet instead of a sentence' -r -f -a "json\t''
yaml\t''
name\t''"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -s y -l yes -d 'Do not ask for confirmation'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l restart -d 'Restart the JobSet once the rollback has landed, so it takes effect now'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l handover -d 'Where the controller forbids template changes (upstream JobSet): recreate the JobSet with the templates and hand its running Jobs over to it, untouched; resumable'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l now -d 'For a JobSet Kueue has admitted (otherwise refused: Kueue would stop it and resume the old template): roll back, let Kueue stop it, and restart it on the rolled-back template at once. Its Pods stop and its Workload queues again. Implies --restart'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l at-next-restart -d 'Leave the spec as it is and stage the rollback for the JobSet\'s next restart (a revision of its own): `restart` applies it, or the recorder at a natural restart'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l force -d 'With --restart (or --now): restart even while the previous restart is still in progress'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand undo" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and not __fish_seen_subcommand_from image env resources update-strategy" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and not __fish_seen_subcommand_from image env resources update-strategy" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and not __fish_seen_subcommand_from image env resources update-strategy" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and not __fish_seen_subcommand_from image env resources update-strategy" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and not __fish_seen_subcommand_from image env resources update-strategy" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and not __fish_seen_subcommand_from image env resources update-strategy" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and not __fish_seen_subcommand_from image env resources update-strategy" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and not __fish_seen_subcommand_from image env resources update-strategy" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and not __fish_seen_subcommand_from image env resources update-strategy" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and not __fish_seen_subcommand_from image env resources update-strategy" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and not __fish_seen_subcommand_from image env resources update-strategy" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and not __fish_seen_subcommand_from image env resources update-strategy" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and not __fish_seen_subcommand_from image env resources update-strategy" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and not __fish_seen_subcommand_from image env resources update-strategy" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and not __fish_seen_subcommand_from image env resources update-strategy" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and not __fish_seen_subcommand_from image env resources update-strategy" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and not __fish_seen_subcommand_from image env resources update-strategy" -s h -l help -d 'Print help'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and not __fish_seen_subcommand_from image env resources update-strategy" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and not __fish_seen_subcommand_from image env resources update-strategy" -f -a "image" -d 'Set container images in JobSet templates: NAME... [REPLICATEDJOB/]CONTAINER=IMAGE...'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and not __fish_seen_subcommand_from image env resources update-strategy" -f -a "env" -d 'Set or remove environment variables in JobSet templates: NAME... KEY=VALUE... KEY-...'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and not __fish_seen_subcommand_from image env resources update-strategy" -f -a "resources" -d 'Set resource limits and requests in JobSet templates: NAME... --limits/--requests LIST'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and not __fish_seen_subcommand_from image env resources update-strategy" -f -a "update-strategy" -d 'Set JobSets\' update strategy: NAME... STRATEGY (Never, Opportunistic or Immediate)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -s l -l selector -d 'Select JobSets by label, e.g. `team=ml`' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -l reason -d 'Why: recorded as the change cause of the new revision (default: the command)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -l dry-run -d 'Change nothing: `client` shows the diff, `server` also runs admission (webhooks, CEL)' -r -f -a "none\t''
client\t'Print what would happen; send nothing'
server\t'Send the patch with dryRun=All, so admission runs; store nothing'"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -l wait -d 'With --restart (or --now): wait until every Job of the new attempt exists (`=ready`: is ready); under Kueue, through its re-admission' -r -f -a "created\t'Every Job of the new attempt exists'
ready\t'Every Job of the new attempt is ready'"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -l timeout -d 'How long --wait waits' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -s o -l output -d 'Print the changed JobSets instead of a sentence each' -r -f -a "json\t''
yaml\t''
name\t''"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -s A -l all-namespaces -d 'Select JobSets in every namespace (with -l)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -s y -l yes -d 'Do not ask for confirmation'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -l handover -d 'Where the controller forbids template changes (upstream JobSet): recreate the JobSet with the new templates and hand its running Jobs over to it, untouched; resumable. One JobSet, by name'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -l restart -d 'Restart each changed JobSet once its patch has landed, so the change takes effect now'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -l now -d 'For a JobSet Kueue has admitted (otherwise refused: Kueue would stop it and resume the old template): change it, let Kueue stop it, and restart it on the new template at once. Its Pods stop and its Workload queues again. Implies --restart'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -l at-next-restart -d 'Leave the spec as it is and stage the change for the JobSet\'s next restart (a revision of its own): `restart` applies it, or the recorder at a natural restart. For JobSets Kueue has admitted, whose Pods a change in place would stop'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -l force -d 'With --restart (or --now): restart even while the previous restart is still in progress'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from image" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -s c -l containers -d 'The containers to change: `[REPLICATEDJOB/]CONTAINER` (`*` for all, the default)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -s e -l env -d 'A variable to set or remove (`KEY=VALUE`, `KEY-`), as a flag; repeatable' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -s l -l selector -d 'Select JobSets by label, e.g. `team=ml`' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -l reason -d 'Why: recorded as the change cause of the new revision (default: the command)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -l dry-run -d 'Change nothing: `client` shows the diff, `server` also runs admission (webhooks, CEL)' -r -f -a "none\t''
client\t'Print what would happen; send nothing'
server\t'Send the patch with dryRun=All, so admission runs; store nothing'"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -l wait -d 'With --restart (or --now): wait until every Job of the new attempt exists (`=ready`: is ready); under Kueue, through its re-admission' -r -f -a "created\t'Every Job of the new attempt exists'
ready\t'Every Job of the new attempt is ready'"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -l timeout -d 'How long --wait waits' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -s o -l output -d 'Print the changed JobSets instead of a sentence each' -r -f -a "json\t''
yaml\t''
name\t''"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -s A -l all-namespaces -d 'Select JobSets in every namespace (with -l)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -s y -l yes -d 'Do not ask for confirmation'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -l handover -d 'Where the controller forbids template changes (upstream JobSet): recreate the JobSet with the new templates and hand its running Jobs over to it, untouched; resumable. One JobSet, by name'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -l restart -d 'Restart each changed JobSet once its patch has landed, so the change takes effect now'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -l now -d 'For a JobSet Kueue has admitted (otherwise refused: Kueue would stop it and resume the old template): change it, let Kueue stop it, and restart it on the new template at once. Its Pods stop and its Workload queues again. Implies --restart'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -l at-next-restart -d 'Leave the spec as it is and stage the change for the JobSet\'s next restart (a revision of its own): `restart` applies it, or the recorder at a natural restart. For JobSets Kueue has admitted, whose Pods a change in place would stop'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -l force -d 'With --restart (or --now): restart even while the previous restart is still in progress'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from env" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -s c -l containers -d 'The containers to change: `[REPLICATEDJOB/]CONTAINER` (`*` for all, the default)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l limits -d 'Resource limits, e.g. `cpu=2,memory=4Gi` (0 removes one)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l requests -d 'Resource requests, e.g. `cpu=1,memory=2Gi` (0 removes one). Under Kueue, a JobSet whose ClusterQueue could never admit the new requests is refused' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -s l -l selector -d 'Select JobSets by label, e.g. `team=ml`' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l reason -d 'Why: recorded as the change cause of the new revision (default: the command)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l dry-run -d 'Change nothing: `client` shows the diff, `server` also runs admission (webhooks, CEL)' -r -f -a "none\t''
client\t'Print what would happen; send nothing'
server\t'Send the patch with dryRun=All, so admission runs; store nothing'"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l wait -d 'With --restart (or --now): wait until every Job of the new attempt exists (`=ready`: is ready); under Kueue, through its re-admission' -r -f -a "created\t'Every Job of the new attempt exists'
ready\t'Every Job of the new attempt is ready'"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l timeout -d 'How long --wait waits' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -s o -l output -d 'Print the changed JobSets instead of a sentence each' -r -f -a "json\t''
yaml\t''
name\t''"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -s A -l all-namespaces -d 'Select JobSets in every namespace (with -l)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -s y -l yes -d 'Do not ask for confirmation'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l handover -d 'Where the controller forbids template changes (upstream JobSet): recreate the JobSet with the new templates and hand its running Jobs over to it, untouched; resumable. One JobSet, by name'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l restart -d 'Restart each changed JobSet once its patch has landed, so the change takes effect now'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l now -d 'For a JobSet Kueue has admitted (otherwise refused: Kueue would stop it and resume the old template): change it, let Kueue stop it, and restart it on the new template at once. Its Pods stop and its Workload queues again. Implies --restart'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l at-next-restart -d 'Leave the spec as it is and stage the change for the JobSet\'s next restart (a revision of its own): `restart` applies it, or the recorder at a natural restart. For JobSets Kueue has admitted, whose Pods a change in place would stop'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l force -d 'With --restart (or --now): restart even while the previous restart is still in progress'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from resources" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from update-strategy" -s l -l selector -d 'Select JobSets by label, e.g. `team=ml`' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from update-strategy" -l dry-run -d 'Change nothing: `client` says what would change, `server` also runs admission' -r -f -a "none\t''
client\t'Print what would happen; send nothing'
server\t'Send the patch with dryRun=All, so admission runs; store nothing'"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from update-strategy" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from update-strategy" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from update-strategy" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from update-strategy" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from update-strategy" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from update-strategy" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from update-strategy" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from update-strategy" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from update-strategy" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from update-strategy" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from update-strategy" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from update-strategy" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from update-strategy" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from update-strategy" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from update-strategy" -s A -l all-namespaces -d 'Select JobSets in every namespace (with -l)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from update-strategy" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from update-strategy" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from update-strategy" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand set; and __fish_seen_subcommand_from update-strategy" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -f -a "start" -d 'Start a rollout: ROLLOUT (JOBSET... | -l SELECTOR [-A]) --image/--env ...'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -f -a "status" -d 'Show where a rollout stands: its phase, batch, gate and every JobSet\'s state'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -f -a "list" -d 'List the rollouts in the namespace'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -f -a "ls" -d 'List the rollouts in the namespace'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -f -a "pause" -d 'Pause a rollout: its driver stops after the step in progress'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -f -a "resume" -d 'Resume a paused rollout (or drive one nobody drives), in the foreground'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and not __fish_seen_subcommand_from start status list ls pause resume abort" -f -a "abort" -d 'Abort a rollout: put back the templates of every JobSet it changed (guarded: an edit made since by someone else is kept); --restart also restarts those it restarted'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -s l -l selector -d 'Select JobSets by label, e.g. `team=ml`' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l image -d 'An image to set, `[REPLICATEDJOB/]CONTAINER=IMAGE` (as `set image`); repeatable' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -s e -l env -d 'A variable to set or remove, `KEY=VALUE` or `KEY-` (as `set env`); repeatable' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -s c -l containers -d 'The containers --env changes: `[REPLICATEDJOB/]CONTAINER` (`*` for all, the default)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l to-revision -d 'Or put back each JobSet\'s own history revision N (as `rollback --to-revision`)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l canary -d 'Canaries: how many (running JobSets first), or which (comma-separated names)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l canary-restart -d 'How the canaries take the change: restarted now, or at their natural restart' -r -f -a "now\t''
natural\t''"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l gate -d 'The health gate after each batch: `ready=DURATION` (every Job of the new attempt ready, no failure, for that long) or `succeeded` (the new attempt completes)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l batch-size -d 'JobSets per batch after the canaries: a number, or a percentage (`25%`)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l restart -d 'How batches take the change: restarted now, or left to their next restart (`strategy`: their update strategy, or a natural restart)' -r -f -a "now\t''
strategy\t''"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l max-restarting -d 'At most this many JobSets restarting (restarted, not ready yet) at once' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l reason -d 'Why: recorded as each JobSet\'s change cause (default: the rollout and its change)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l timeout -d 'How long to drive before leaving it (it goes on with `resume`); 0: until done' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -s A -l all-namespaces -d 'Select JobSets in every namespace (with -l)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l detach -d 'Only write the journal; leave the driving to a later `rollout resume`'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -s y -l yes -d 'Do not ask for confirmation'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from start" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from status" -s o -l output -d 'The rollout as one object (spec and status)' -r -f -a "json\t''
yaml\t''"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from status" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from status" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from status" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from status" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from status" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from status" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from status" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from status" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from status" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from status" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from status" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from status" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from status" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from status" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from status" -s w -l watch -d 'Print again as it moves, until it completes or is aborted'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from status" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from status" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from list" -s o -l output -r -f -a "json\t''
yaml\t''"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from list" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from list" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from list" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from list" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from list" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from list" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from list" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from list" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from list" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from list" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from list" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from list" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from list" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from list" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from list" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from list" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from ls" -s o -l output -r -f -a "json\t''
yaml\t''"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from ls" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from ls" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from ls" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from ls" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from ls" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from ls" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from ls" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from ls" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from ls" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from ls" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from ls" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from ls" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from ls" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from ls" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from ls" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from ls" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from ls" -s h -l help -d 'Print help'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from ls" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from pause" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from pause" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from pause" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from pause" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from pause" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from pause" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from pause" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from pause" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from pause" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from pause" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from pause" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from pause" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from pause" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from pause" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from pause" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from pause" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from pause" -s h -l help -d 'Print help'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from pause" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from resume" -l timeout -d 'How long to drive before leaving it (it goes on with the next `resume`); 0: until done' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from resume" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from resume" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from resume" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from resume" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from resume" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from resume" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from resume" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from resume" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from resume" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from resume" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from resume" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from resume" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from resume" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from resume" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from resume" -l detach -d 'Only write the journal; leave the driving to a later `rollout resume`'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from resume" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from resume" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from resume" -s h -l help -d 'Print help'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from resume" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from abort" -l timeout -d 'How long to drive before leaving it (it goes on with the next `resume`); 0: until done' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from abort" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from abort" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from abort" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from abort" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from abort" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from abort" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from abort" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from abort" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from abort" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from abort" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from abort" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from abort" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from abort" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from abort" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from abort" -l detach -d 'Only write the journal; leave the driving to a later `rollout resume`'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from abort" -l restart -d 'Also restart the rolled-back JobSets the rollout had restarted, so they run their old template again now'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from abort" -s y -l yes -d 'Do not ask for confirmation'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from abort" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from abort" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from abort" -s h -l help -d 'Print help'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand rollout; and __fish_seen_subcommand_from abort" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand status" -s w -l watch -d 'Watch until done (`--watch=false`: look once and say where it stands)' -r -f -a "true\t''
false\t''"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand status" -l timeout -d 'How long to watch before giving up (0: no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand status" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand status" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand status" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand status" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand status" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand status" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand status" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand status" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand status" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand status" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand status" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand status" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand status" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand status" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand status" -l record -d 'Also record the history seen (ControllerRevisions), as restart, rollback and set image do. Without it this command only reads: the recorder keeps history complete, and --record is the fallback where none runs. KUBECTL_JOBSET_RECORD=1 sets it'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand status" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand status" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand status" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand tree" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand tree" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand tree" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand tree" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand tree" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand tree" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand tree" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand tree" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand tree" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand tree" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand tree" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand tree" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand tree" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand tree" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand tree" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand tree" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand tree" -s h -l help -d 'Print help'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand tree" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand suspend" -s l -l selector -d 'Label selector, e.g. `team=ml,tier!=dev`' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand suspend" -l dry-run -d 'Change nothing: `client` shows the diff, `server` also runs admission (webhooks, CEL)' -r -f -a "none\t''
client\t'Print what would happen; send nothing'
server\t'Send the patch with dryRun=All, so admission runs; store nothing'"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand suspend" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand suspend" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand suspend" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand suspend" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand suspend" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand suspend" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand suspend" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand suspend" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand suspend" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand suspend" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand suspend" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand suspend" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand suspend" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand suspend" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand suspend" -s A -l all-namespaces -d 'Look in every namespace'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand suspend" -s y -l yes -d 'Do not ask for confirmation'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand suspend" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand suspend" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand suspend" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand suspend" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand resume" -s l -l selector -d 'Label selector, e.g. `team=ml,tier!=dev`' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand resume" -l dry-run -d 'Change nothing: `client` shows the diff, `server` also runs admission (webhooks, CEL)' -r -f -a "none\t''
client\t'Print what would happen; send nothing'
server\t'Send the patch with dryRun=All, so admission runs; store nothing'"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand resume" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand resume" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand resume" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand resume" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand resume" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand resume" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand resume" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand resume" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand resume" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand resume" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand resume" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand resume" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand resume" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand resume" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand resume" -s A -l all-namespaces -d 'Look in every namespace'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand resume" -s y -l yes -d 'Do not ask for confirmation'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand resume" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand resume" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand resume" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand resume" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand admission" -l dry-run -d 'With --apply, change nothing: `client` says what would change, `server` sends it with dryRun=All' -r -f -a "none\t''
client\t'Print what would happen; send nothing'
server\t'Send the patch with dryRun=All, so admission runs; store nothing'"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand admission" -l webhook-configuration -d 'The ValidatingWebhookConfiguration of upstream\'s JobSet webhook' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand admission" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand admission" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand admission" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand admission" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand admission" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand admission" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand admission" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand admission" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand admission" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand admission" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand admission" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand admission" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand admission" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand admission" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand admission" -l apply -d 'Create the opt-in policy and patch the webhook configuration'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand admission" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand admission" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand admission" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand admission" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -s l -l selector -d 'Only JobSets matching this label selector, e.g. `team=ml`' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -l lease-namespace -d 'Namespace of the recorder\'s Lease (commands read it from KUBECTL_JOBSET_RECORDER_NAMESPACE)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -l lease-duration -d 'How long the Lease holds without renewal (renewed every third of it)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -l metrics-addr -l metrics-bind-address -l health-probe-bind-address -d 'Where to serve /healthz, /readyz and /metrics (HOST:PORT, :PORT, or 0 for none). Also as controller-runtime names it: --metrics-bind-address, and --health-probe-bind-address (the probes share the metrics address)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -l history-retention -d 'How long a deleted JobSet\'s history is kept before it is pruned (0: at once)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -l default-update-strategy -d 'The update strategy of JobSets without the kubectl-jobset.io/update-strategy annotation: RecordOnly (history only, never restarted), Never, Opportunistic or Immediate' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -s A -l all-namespaces -d 'Record JobSets in every namespace (default: the namespace of -n or the context)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -l leader-elect -d 'Run as one of several replicas: only the holder of the Lease records'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -l no-update-strategies -d 'Do not enforce update strategies (record history only; the recorder then needs no write access to jobsets/status)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand recorder" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand version" -s o -l output -d 'Print as json or yaml' -r -f -a "json\t''
yaml\t''"
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand version" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand version" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand version" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand version" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand version" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand version" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand version" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand version" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand version" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand version" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand version" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand version" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand version" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand version" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand version" -l client -d 'The plugin\'s version only (no cluster is contacted)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand version" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand version" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand version" -s h -l help -d 'Print help'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand version" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand completion" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand completion" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand completion" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand completion" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand completion" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand completion" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand completion" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand completion" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand completion" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand completion" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand completion" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand completion" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand completion" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand completion" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand completion" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand completion" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand completion" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand completion" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand __complete" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand __complete" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand __complete" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand __complete" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand __complete" -s s -l server -d 'The API server\'s address, overriding the kubeconfig\'s (e.g. https://10.0.0.1:6443)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand __complete" -l token -d 'A bearer token to authenticate with, instead of the kubeconfig user\'s credentials' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand __complete" -l tls-server-name -d 'Server name to verify the API server\'s certificate against' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand __complete" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace). Given twice, the last wins, as in kubectl' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand __complete" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand __complete" -l as-group -d 'Group to impersonate for the operation (repeat for several)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand __complete" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand __complete" -l request-timeout -d 'How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit)' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand __complete" -l history-limit -d 'Revisions to keep per JobSet when history is recorded (by restart, rollback, set image and the recorder, and by diff, history and status given --record); the spec\'s and the running one are always kept' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand __complete" -s v -l v -d 'Log verbosity, as kubectl\'s -v: 6 logs every API request (method, URL, status, latency) to stderr; 8 adds request headers, with credentials redacted' -r
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand __complete" -l insecure-skip-tls-verify -d 'Skip verification of the API server\'s certificate (insecure)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand __complete" -l no-color -d 'Do not colour output (also: the NO_COLOR environment variable)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand __complete" -s h -l help -d 'Print help'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand __complete" -s V -l version -d 'Print version'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and not __fish_seen_subcommand_from list diff restart history rollback set rollout status tree suspend resume admission recorder version completion __complete help" -f -a "list" -d 'List JobSets with their restart attempt, Job counts and status'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and not __fish_seen_subcommand_from list diff restart history rollback set rollout status tree suspend resume admission recorder version completion __complete help" -f -a "diff" -d 'Show which running Jobs use an outdated template, and what differs'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and not __fish_seen_subcommand_from list diff restart history rollback set rollout status tree suspend resume admission recorder version completion __complete help" -f -a "restart" -d 'Restart JobSets now, so a pending template takes effect'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and not __fish_seen_subcommand_from list diff restart history rollback set rollout status tree suspend resume admission recorder version completion __complete help" -f -a "history" -d 'Show a JobSet\'s template revisions, and which restart attempts ran each'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and not __fish_seen_subcommand_from list diff restart history rollback set rollout status tree suspend resume admission recorder version completion __complete help" -f -a "rollback" -d 'Put an earlier revision\'s templates back into the JobSet spec'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and not __fish_seen_subcommand_from list diff restart history rollback set rollout status tree suspend resume admission recorder version completion __complete help" -f -a "set" -d 'Change JobSet templates in place, as `kubectl set` does (`set image`)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and not __fish_seen_subcommand_from list diff restart history rollback set rollout status tree suspend resume admission recorder version completion __complete help" -f -a "rollout" -d 'Roll one template change out over a fleet of JobSets in steps: canaries first, then batches, each behind a health gate; with status, pause, resume and abort'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and not __fish_seen_subcommand_from list diff restart history rollback set rollout status tree suspend resume admission recorder version completion __complete help" -f -a "status" -d 'Follow a JobSet\'s current restart attempt until it runs the spec\'s templates and is ready, like `kubectl rollout status`'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and not __fish_seen_subcommand_from list diff restart history rollback set rollout status tree suspend resume admission recorder version completion __complete help" -f -a "tree" -d 'Show one JobSet as a tree: its replicatedJobs, their Jobs (restart attempt, template revision, readiness, outdated or not) and the Jobs\' Pods, like `kubectl argo rollouts get rollout`. Reads only'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and not __fish_seen_subcommand_from list diff restart history rollback set rollout status tree suspend resume admission recorder version completion __complete help" -f -a "suspend" -d 'Suspend JobSets (spec.suspend: true): the controller suspends their Jobs, whose Pods stop, as `kubectl rollout pause` pauses a Deployment'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and not __fish_seen_subcommand_from list diff restart history rollback set rollout status tree suspend resume admission recorder version completion __complete help" -f -a "resume" -d 'Resume suspended JobSets (spec.suspend: false): their existing Jobs start'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and not __fish_seen_subcommand_from list diff restart history rollback set rollout status tree suspend resume admission recorder version completion __complete help" -f -a "admission" -d 'Check how the cluster treats JobSet template updates, and opt in on a stock install'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and not __fish_seen_subcommand_from list diff restart history rollback set rollout status tree suspend resume admission recorder version completion __complete help" -f -a "recorder" -d 'Keep every JobSet\'s history as it happens: a controller that runs until stopped'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and not __fish_seen_subcommand_from list diff restart history rollback set rollout status tree suspend resume admission recorder version completion __complete help" -f -a "version" -d 'Print the plugin\'s version, and what the cluster runs: Kubernetes, the JobSet API and controller, Kueue, and the recorder'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and not __fish_seen_subcommand_from list diff restart history rollback set rollout status tree suspend resume admission recorder version completion __complete help" -f -a "completion" -d 'Print a shell completion script (bash, zsh, fish, powershell), or the kubectl completion shim (`kubectl`)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and not __fish_seen_subcommand_from list diff restart history rollback set rollout status tree suspend resume admission recorder version completion __complete help" -f -a "__complete" -d 'Answer kubectl\'s plugin completion protocol (used by kubectl_complete-jobset)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and not __fish_seen_subcommand_from list diff restart history rollback set rollout status tree suspend resume admission recorder version completion __complete help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and __fish_seen_subcommand_from set" -f -a "image" -d 'Set container images in JobSet templates: NAME... [REPLICATEDJOB/]CONTAINER=IMAGE...'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and __fish_seen_subcommand_from set" -f -a "env" -d 'Set or remove environment variables in JobSet templates: NAME... KEY=VALUE... KEY-...'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and __fish_seen_subcommand_from set" -f -a "resources" -d 'Set resource limits and requests in JobSet templates: NAME... --limits/--requests LIST'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and __fish_seen_subcommand_from set" -f -a "update-strategy" -d 'Set JobSets\' update strategy: NAME... STRATEGY (Never, Opportunistic or Immediate)'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and __fish_seen_subcommand_from rollout" -f -a "start" -d 'Start a rollout: ROLLOUT (JOBSET... | -l SELECTOR [-A]) --image/--env ...'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and __fish_seen_subcommand_from rollout" -f -a "status" -d 'Show where a rollout stands: its phase, batch, gate and every JobSet\'s state'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and __fish_seen_subcommand_from rollout" -f -a "list" -d 'List the rollouts in the namespace'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and __fish_seen_subcommand_from rollout" -f -a "pause" -d 'Pause a rollout: its driver stops after the step in progress'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and __fish_seen_subcommand_from rollout" -f -a "resume" -d 'Resume a paused rollout (or drive one nobody drives), in the foreground'
complete -c kubectl-jobset -n "__fish_kubectl_jobset_using_subcommand help; and __fish_seen_subcommand_from rollout" -f -a "abort" -d 'Abort a rollout: put back the templates of every JobSet it changed (guarded: an edit made since by someone else is kept); --restart also restarts those it restarted'
