# Sourced by bench/run.sh and bench/recorder.sh.
#
# request_kinds: a `-v=6` request log on stdin (`GET https://h/apis/batch/v1/namespaces/x/jobs?… 200 OK in 12
# milliseconds`), one tab-separated line per kind of request out: COUNT, MEAN_MS, KIND, where KIND is a verb and
# a resource: "LIST jobs", "LIST (next page) jobs", "WATCH jobsets", "get leases", "create controllerrevisions",
# "dry-run create jobs", "put leases", "patch jobsets/status".
request_kinds() {
  awk '$1 ~ /^(GET|POST|PATCH|PUT|DELETE)$/ && $2 ~ /^https/ {
    method = $1; url = $2; sub(/^https:\/\/[^\/]*/, "", url)
    query = ""; if (index(url, "?")) { query = substr(url, index(url, "?") + 1); url = substr(url, 1, index(url, "?") - 1) }
    gsub(/\/namespaces\/[^\/]+/, "", url)
    n = split(url, p, "/")
    # /api/v1/R[/NAME[/SUB]] or /apis/G/V/R[/NAME[/SUB]]
    first = (p[2] == "api") ? 4 : 5
    resource = p[first]; named = (n > first); sub_ = (n > first + 1) ? "/" p[first + 2] : ""
    if (method == "GET" && query ~ /(^|&)watch=(true|1)/) kind = "WATCH"
    else if (method == "GET") kind = named ? "get" : (query ~ /continue=/ ? "LIST (next page)" : "LIST")
    else if (method == "POST") kind = (query ~ /dryRun=All/) ? "dry-run create" : "create"
    else kind = tolower(method)
    ms = 0; for (i = 3; i <= NF; i++) if ($i ~ /^milliseconds/) { ms = $(i - 1); break }
    key = kind " " resource sub_; count[key]++; total[key] += ms
  } END { for (k in count) printf "%d\t%.0f\t%s\n", count[k], total[k] / count[k], k }'
}
