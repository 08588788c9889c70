# bash completion for kubectl-jobset. Every candidate comes from `kubectl-jobset
# __complete` (the protocol kubectl uses for plugins), so JobSet names, namespaces,
# containers and revision numbers are live, and hidden commands never show.
#   source <(kubectl-jobset completion bash)
_kubectl_jobset() {
    local line=${COMP_LINE:0:COMP_POINT} out directive cur
    local -a words
    # Split as the shell will run it, not at COMP_WORDBREAKS (`=`, `:`).
    read -ra words <<< "$line"
    [[ $line == *[[:space:]] ]] && words+=("")
    cur=${words[${#words[@]}-1]}
    out=$("${words[0]}" __complete "${words[@]:1}" 2>/dev/null) || return 0
    directive=${out##*:}
    out=${out%:*}
    # bash replaces only the part of the word after its last `=` or `:`.
    local typed=${cur%"${cur##*[=:]}"}
    local IFS=$'\n' value
    COMPREPLY=()
    for value in $out; do
        value=${value%%$'\t'*}
        [[ $value == "$cur"* ]] && COMPREPLY+=("${value#"$typed"}")
    done
    (( directive & 2 )) && compopt -o nospace 2>/dev/null
    if (( ${#COMPREPLY[@]} == 0 && (directive & 4) == 0 )); then
        compopt -o default 2>/dev/null
    fi
    return 0
}
complete -o nosort -F _kubectl_jobset kubectl-jobset 2>/dev/null || complete -F _kubectl_jobset kubectl-jobset
