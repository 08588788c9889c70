# fish completion for kubectl-jobset. Every candidate comes from `kubectl-jobset
# __complete` (the protocol kubectl uses for plugins), so JobSet names, namespaces,
# containers and revision numbers are live, and hidden commands never show.
#   kubectl-jobset completion fish | source
function __kubectl_jobset_complete
    set -l typed (commandline -opc)
    set -l out ($typed[1] __complete $typed[2..-1] (commandline -ct) 2>/dev/null)
    or return
    set -l directive (string replace -r '^:' '' -- $out[-1])
    set -e out[-1]
    if test (count $out) -eq 0; and test (math "$directive % 8 - $directive % 4") -eq 0
        __fish_complete_path (commandline -ct)
        return
    end
    printf '%s\n' $out
end
complete -c kubectl-jobset -f -a '(__kubectl_jobset_complete)'
