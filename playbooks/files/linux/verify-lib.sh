# kubemix verify: the six checks (playbooks/cluster/verify.yml sources this file on the first
# controller after verify-env.sh, which sets):
#   KMX_T        HTTP timeout in seconds
#   KMX_LINUX    the Linux workload (agnhost netexec DaemonSet, its pods' app label, its Service)
#   KMX_CLIENT   the Linux client pod's Deployment and app label
#   KMX_LPORT    netexec's HTTP port
#   KMX_WINDOWS  the Windows workload's app label and Service (win-webserver), empty without Windows workers
#   KMX_OUTBOUND_URL  the outside URL the outbound check tries, and KMX_OUTBOUND_PS the same as a
#                PowerShell string literal
# Each check prints exactly one JSON line {"check", "ok", "detail", "command"}; one result covers
# both operating systems, its detail names every pod and node it tried.
# The Linux side uses what Kubernetes' own e2e network tests use (k8s.io/kubernetes v1.37.2):
# curl to netexec's /hostname from a node (test/e2e/framework/network/utils.go DialFromNode,
# L485-504), netexec's /dial from the client pod to the other pods (DialFromContainer and
# makeCURLDialCommand, L303-335: /dial?request=hostname&protocol=http&host=H&port=P&tries=1; the
# answer is JSON whose "responses" hold what the target answered) and `/agnhost connect HOST:PORT
# --timeout=Ns` for a plain TCP connection (test/e2e/network/netpol/kubemanager.go L161-169).
K="kubectl --kubeconfig /etc/kubernetes/admin.conf"

# A JSON string literal: backslashes and quotes escaped, newlines as \n, other controls dropped.
kmx_json() {
  printf '%s' "$1" | tr -d '\000-\010\013\014\016-\037\r' | tr '\t' ' ' |
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' |
    awk 'BEGIN { printf "\"" } NR > 1 { printf "\\n" } { printf "%s", $0 } END { printf "\"" }'
}

# The one JSON line of a check: NAME OK(true|false) DETAIL COMMAND.
kmx_result() {
  printf '{"check": %s, "ok": %s, "detail": %s, "command": %s}\n' \
    "$(kmx_json "$1")" "$2" "$(kmx_json "$3")" "$(kmx_json "$4")"
}

# The first line that says something (not kubectl's "command terminated" trailer).
kmx_first_line() {
  printf '%s\n' "$1" | tr -d '\r' | grep -v '^command terminated with exit code' |
    grep -v '^[[:space:]]*$' | head -n 1
}

# Starts a check's result (every part adds to ok, detail and cmds); Windows pods that are
# missing are its first failed part.
kmx_begin() {
  ok=true detail='' cmds=''
  [ -z "$WMISSING" ] || kmx_add false "$WMISSING" "$K get pods -l app=$KMX_WINDOWS"
}

# One part of a check: PASSED(true|false) DETAIL COMMAND.
kmx_add() {
  [ "$1" = true ] || ok=false
  detail="$detail${detail:+; }$2"
  cmds="$cmds${cmds:+; }$3"
}

# "NAME IP NODE" of each Ready pod labelled app=$1, one per line. Ready, not Running: a pod whose
# container cannot start (CrashLoopBackOff) is still phase Running.
kmx_pods() {
  pods=$($K get pods -l "app=$1" \
    -o 'jsonpath={range .items[*]}{.metadata.name} {.status.podIP} {.spec.nodeName} {.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' \
    2>&1 </dev/null) || { printf '%s\n' "$pods"; return 1; }
  printf '%s\n' "$pods" | awk '$4 == "True" { print $1, $2, $3 }'
}

# $1 quoted for the shell.
kmx_sq() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

# Assignments PREFIX_PODS (kmx_pods of app $2) and PREFIX_ERR (why there is none) for prefix $1.
kmx_collect_pods() {
  if pods=$(kmx_pods "$2" 2>&1); then
    err=''
    [ -n "$pods" ] || err="no Ready $2 pod"
  else
    err="kubectl get pods failed: $(kmx_first_line "$pods")" pods=''
  fi
  printf '%s_PODS=%s\n%s_ERR=%s\n' "$1" "$(kmx_sq "$pods")" "$1" "$(kmx_sq "$err")"
}

# Assignments PREFIX_SVC ("ClusterIP port nodePort" of Service $2) and PREFIX_ERR for prefix $1.
kmx_collect_service() {
  if svc=$($K get svc "$2" -o 'jsonpath={.spec.clusterIP} {.spec.ports[0].port} {.spec.ports[0].nodePort}' 2>&1 </dev/null); then
    err=''
  else
    err="kubectl get svc failed: $(kmx_first_line "$svc")" svc=''
  fi
  printf '%s_SVC=%s\n%s_ERR=%s\n' "$1" "$(kmx_sq "$svc")" "$1" "$(kmx_sq "$err")"
}

# The workloads' pods and Services, read once for all checks: the shell assignments verify.yml
# writes to verify-state.sh, which every check sources after this file.
kmx_collect() {
  kmx_collect_pods KMX_L "$KMX_LINUX"
  kmx_collect_pods KMX_C "$KMX_CLIENT"
  kmx_collect_service KMX_LS "$KMX_LINUX"
  [ -n "$KMX_WINDOWS" ] || return 0
  kmx_collect_pods KMX_W "$KMX_WINDOWS"
  kmx_collect_service KMX_WS "$KMX_WINDOWS"
}

# The pods a check needs: LPODS (the netexec endpoint pods) and CLIENT ("NAME IP NODE" of the
# client pod), else a failed result for check $1 (returns 1); WPODS (win-webserver, when the
# cluster has Windows workers), else WMISSING says why there are none (kmx_begin reports it).
kmx_workloads() {
  for role in L:"$KMX_LINUX" C:"$KMX_CLIENT"; do
    eval "err=\$KMX_${role%%:*}_ERR"
    if [ -n "$err" ]; then
      kmx_result "$1" false "$err" "$K get pods -l app=${role#*:}"
      return 1
    fi
  done
  LPODS=$KMX_L_PODS
  CLIENT=$(printf '%s\n' "$KMX_C_PODS" | sed -n 1p)
  WPODS=${KMX_W_PODS:-} WMISSING=${KMX_W_ERR:-}
}

# $1 on one line, without leading or trailing blanks (no globbing, unlike $(echo $1)).
kmx_trim() { printf '%s' "$1" | tr '\n' ' ' | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//'; }

# Field $2 (1 name, 2 IP, 3 node) of pod line $1.
kmx_field() { printf '%s\n' "$1" | cut -d' ' -f"$2"; }

# Is $1 one of the lines of $2?
kmx_member() { printf '%s\n' "$2" | grep -qxF -- "$1"; }

# An HTTP/1.0 GET of URL $1 (http://HOST[:PORT][/PATH]) over bash's /dev/tcp: prints the body,
# whatever the status (as curl without -f does), and fails when the connection does.
KMX_BASH_GET=$(cat <<'GET'
u=${1#http://}; hostport=${u%%/*}; path=${u#"$hostport"}
host=${hostport%:*}; port=${hostport##*:}
[ "$host" = "$hostport" ] && port=80
exec 3<>"/dev/tcp/$host/$port" || exit 7
printf 'GET %s HTTP/1.0\r\nHost: %s\r\nConnection: close\r\n\r\n' "${path:-/}" "$hostport" >&3
response=$(cat <&3)
case $response in
  HTTP/1.?' '*) printf '%s' "${response#*$'\r\n\r\n'}" ;;
  *) echo "not an HTTP answer from $hostport: ${response%%$'\r'*}" >&2; exit 8 ;;
esac
GET
)

# An HTTP GET from this node: sets KMX_OUT (body or error), KMX_RC, KMX_CMD. curl where the node
# has it; without it, bash's /dev/tcp. In offline mode nothing installs curl (prepare-linux takes it
# from the package repository, and Kubernetes needs none): on the real cluster's Debian 13 guests
# every node-side check failed with "curl: not found".
kmx_curl() {
  if command -v curl >/dev/null 2>&1; then
    KMX_CMD="curl -sS --max-time $KMX_T '$1'"
    KMX_OUT=$(curl -sS --max-time "$KMX_T" "$1" 2>&1 </dev/null)
    KMX_RC=$?
    return
  fi
  KMX_CMD="GET '$1' (HTTP/1.0 over bash's /dev/tcp, within ${KMX_T}s: this node has no curl)"
  KMX_OUT=$(timeout "$KMX_T" bash -c "$KMX_BASH_GET" kmx-get "$1" 2>&1 </dev/null)
  KMX_RC=$?
  [ "$KMX_RC" -ne 124 ] || KMX_OUT="no answer within ${KMX_T}s"
}

# The first string of list $2 in netexec's one-line JSON $1, its \" and \\ unescaped.
kmx_json_first() {
  printf '%s' "$1" | sed -nE "s/.*\"$2\":\\[\"(([^\"\\\\]|\\\\.)*)\".*/\\1/p" |
    sed -e 's/\\"/"/g' -e 's/\\\\/\\/g'
}

# netexec's /dial on the pod at IP $1: that pod requests http://$2:$3/hostname itself. Sets
# KMX_ANSWER (its first response) or KMX_ERROR (why there is none), and KMX_CMD.
kmx_dial() {
  kmx_curl "http://$1:$KMX_LPORT/dial?request=hostname&protocol=http&host=$2&port=$3&tries=1"
  KMX_ANSWER='' KMX_ERROR=''
  if [ "$KMX_RC" -ne 0 ]; then
    KMX_ERROR="/dial on $1 did not answer: $(kmx_first_line "$KMX_OUT")"
    return
  fi
  KMX_ANSWER=$(kmx_json_first "$KMX_OUT" responses)
  [ -n "$KMX_ANSWER" ] && return
  KMX_ERROR=$(kmx_json_first "$KMX_OUT" errors)
  [ -n "$KMX_ERROR" ] || KMX_ERROR="unexpected /dial answer: $(kmx_first_line "$KMX_OUT")"
}

# Invoke-WebRequest inside pod $1 for the URI $2, a PowerShell string literal ('http://...':
# verify.yml quotes the user's URL with the PowerShell quoting filter; the others are made of pod
# IPs and Service names), property $3 (default StatusCode): sets KMX_OUT (the value or the
# error), KMX_RC, KMX_CMD.
kmx_iwr() {
  prop=${3:-StatusCode}
  KMX_CMD="$K exec $1 -- powershell -NoProfile -Command \"(Invoke-WebRequest -UseBasicParsing -Uri $2).$prop\""
  KMX_OUT=$(timeout 150 $K exec "$1" -- powershell -NoProfile -Command "(Invoke-WebRequest -UseBasicParsing -Uri $2).$prop" 2>&1 </dev/null)
  KMX_RC=$?
  KMX_OUT=$(printf '%s' "$KMX_OUT" | tr -d '\r')
}

# The pod IP a win-webserver page names (its listener answers with its own pod IP).
kmx_served_by() {
  printf '%s' "$1" | sed -n 's/.*pod IP: \([0-9A-Fa-f.:]*\).*/\1/p' | head -n 1
}

# ClusterIP, port and nodePort of Service $2 (one of the workloads') into KMX_VIP, KMX_PORT,
# KMX_NODEPORT, or a failed result for check $1 (returns 1).
kmx_need_service() {
  if [ "$2" = "$KMX_LINUX" ]; then svc=$KMX_LS_SVC err=$KMX_LS_ERR; else svc=$KMX_WS_SVC err=$KMX_WS_ERR; fi
  if [ -n "$err" ]; then
    kmx_result "$1" false "$err" "$K get svc $2"
    return 1
  fi
  set -- $svc
  KMX_VIP=$1 KMX_PORT=$2 KMX_NODEPORT=$3
}

# Adds the outcome of a /hostname request (KMX_RC, KMX_OUT from kmx_curl): LABEL, the expected
# names (one per line).
kmx_add_hostname() {
  if [ "$KMX_RC" -ne 0 ]; then
    kmx_add false "$1: $(kmx_first_line "$KMX_OUT")" "$KMX_CMD"
  elif kmx_member "$KMX_OUT" "$2"; then
    kmx_add true "$1: hostname $KMX_OUT" "$KMX_CMD"
  else
    kmx_add false "$1: answered '$(kmx_first_line "$KMX_OUT")', not a $KMX_LINUX pod's name" "$KMX_CMD"
  fi
}

# Adds the outcome of a /dial (kmx_dial): LABEL, the expected names (one per line).
kmx_add_dial() {
  if [ -n "$KMX_ERROR" ]; then
    kmx_add false "$1: $KMX_ERROR" "$KMX_CMD"
  elif kmx_member "$KMX_ANSWER" "$2"; then
    kmx_add true "$1: hostname $KMX_ANSWER" "$KMX_CMD"
  else
    kmx_add false "$1: answered '$KMX_ANSWER', not a $KMX_LINUX pod's name" "$KMX_CMD"
  fi
}

# Adds the outcome of an Invoke-WebRequest .StatusCode (kmx_iwr): LABEL.
kmx_add_iwr() {
  if [ "$KMX_RC" -eq 0 ] && [ "$(kmx_trim "$KMX_OUT")" = 200 ]; then
    kmx_add true "$1: HTTP 200" "$KMX_CMD"
  else
    kmx_add false "$1: $(kmx_first_line "$KMX_OUT")" "$KMX_CMD"
  fi
}

# "host:port" of a URL (the scheme's port when it names none).
kmx_hostport() {
  case $1 in *://*) scheme=${1%%://*} rest=${1#*://} ;; *) scheme=http rest=$1 ;; esac
  hp=${rest%%/*}
  hp=${hp%%\?*}
  case $hp in
  \[*\]:*) printf '%s' "$hp" ;;
  \[*\]) printf '%s:%s' "$hp" "$([ "$scheme" = https ] && echo 443 || echo 80)" ;;
  *:*) printf '%s' "$hp" ;;
  *) printf '%s:%s' "$hp" "$([ "$scheme" = https ] && echo 443 || echo 80)" ;;
  esac
}
