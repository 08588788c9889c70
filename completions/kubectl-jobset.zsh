#compdef kubectl-jobset
# zsh completion for kubectl-jobset. Every candidate comes from `kubectl-jobset
# __complete` (the protocol kubectl uses for plugins), so JobSet names, namespaces,
# containers and revision numbers are live, and hidden commands never show.
#   source <(kubectl-jobset completion zsh)      (after compinit)
_kubectl_jobset() {
    local out directive line value description
    local -a lines candidates
    out=$("${words[1]}" __complete "${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
    lines=("${(@f)out}")
    directive=${lines[-1]#:}
    for line in "${(@)lines[1,-2]}"; do
        value=${line%%$'\t'*}
        description=""
        [[ $line == *$'\t'* ]] && description=${line#*$'\t'}
        candidates+=("${value//:/\\:}${description:+:$description}")
    done
    if (( ${#candidates} == 0 )); then
        (( directive & 4 )) || _files
        return
    fi
    if (( directive & 2 )); then
        _describe -t values 'kubectl-jobset' candidates -S ''
    else
        _describe -t values 'kubectl-jobset' candidates
    fi
}
if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then
    _kubectl_jobset "$@"
else
    compdef _kubectl_jobset kubectl-jobset
fi
