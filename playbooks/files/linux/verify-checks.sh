# kubemix verify: the six checks, each a function printing its one JSON line (helpers and the
# variables they read: verify-lib.sh). Every check covers the Linux workload and, when the cluster
# has Windows workers, the Windows one, in one result. Pod lists are read with `read <&3` from a
# here-document on fd 3, so kubectl and curl in the loops cannot swallow the list.

# From this controller: netexec's /hostname on every Linux pod, the page of every Windows pod.
check_node_to_pod() {
  kmx_workloads node-to-pod || return 0
  kmx_begin
  while read -r name ip node <&3; do
    kmx_curl "http://$ip:$KMX_LPORT/hostname"
    kmx_add_hostname "$name on $node ($ip)" "$name"
  done 3<<EOF
$LPODS
$CLIENT
EOF
  if [ -n "$WPODS" ]; then
    while read -r name ip node <&3; do
      kmx_curl "http://$ip/"
      if [ "$KMX_RC" -eq 0 ]; then
        kmx_add true "$name on $node ($ip): HTTP 200" "$KMX_CMD"
      else
        kmx_add false "$name on $node ($ip): $(kmx_first_line "$KMX_OUT")" "$KMX_CMD"
      fi
    done 3<<EOF
$WPODS
EOF
  fi
  kmx_result node-to-pod "$ok" "$detail" "$cmds"
}

# Pod to pod: the Linux client to every Linux pod and every Windows pod (netexec's /dial), the
# first Windows pod to every Linux pod (Invoke-WebRequest), and Windows to Windows.
check_pod_to_pod() {
  kmx_workloads pod-to-pod || return 0
  kmx_begin
  cname=$(kmx_field "$CLIENT" 1) cip=$(kmx_field "$CLIENT" 2) cnode=$(kmx_field "$CLIENT" 3)
  while read -r name ip node <&3; do
    kmx_dial "$cip" "$ip" "$KMX_LPORT"
    kmx_add_dial "$cname ($cnode) -> $name on $node ($ip)" "$name"
  done 3<<EOF
$LPODS
EOF
  if [ -n "$WPODS" ]; then
    while read -r name ip node <&3; do
      kmx_dial "$cip" "$ip" 80
      label="$cname ($cnode) -> $name on $node ($ip)"
      if [ -n "$KMX_ERROR" ]; then
        kmx_add false "$label: $KMX_ERROR" "$KMX_CMD"
      elif [ "$(kmx_served_by "$KMX_ANSWER")" = "$ip" ]; then
        kmx_add true "$label: HTTP answer from pod IP $ip" "$KMX_CMD"
      else
        kmx_add false "$label: answered '$KMX_ANSWER'" "$KMX_CMD"
      fi
    done 3<<EOF
$WPODS
EOF
    first=$(printf '%s\n' "$WPODS" | sed -n 1p)
    wname=$(kmx_field "$first" 1) wnode=$(kmx_field "$first" 3)
    while read -r name ip node <&3; do
      kmx_iwr "$wname" "'http://$ip:$KMX_LPORT/hostname'" Content
      label="$wname ($wnode) -> $name on $node ($ip)"
      if [ "$KMX_RC" -eq 0 ] && [ "$(kmx_trim "$KMX_OUT")" = "$name" ]; then
        kmx_add true "$label: hostname $name" "$KMX_CMD"
      else
        kmx_add false "$label: $(kmx_first_line "$KMX_OUT")" "$KMX_CMD"
      fi
    done 3<<EOF
$LPODS
EOF
    # Windows to Windows as the Windows guide checks it: first to last (with several Windows
    # versions, from the oldest version's pod to the newest's).
    n=$(printf '%s\n' "$WPODS" | grep -c .)
    if [ "$n" -lt 2 ]; then
      kmx_add false "need 2 Ready $KMX_WINDOWS pods, found $n" "$K get pods -l app=$KMX_WINDOWS"
    else
      last=$(printf '%s\n' "$WPODS" | sed -n '$p')
      kmx_iwr "$wname" "'http://$(kmx_field "$last" 2)'"
      kmx_add_iwr "$wname ($wnode) -> $(kmx_field "$last" 1) on $(kmx_field "$last" 3) ($(kmx_field "$last" 2))"
    fi
  fi
  kmx_result pod-to-pod "$ok" "$detail" "$cmds"
}

# From this controller: each workload's Service ClusterIP.
check_service_vip() {
  kmx_workloads service-vip || return 0
  kmx_need_service service-vip "$KMX_LINUX" || return 0
  kmx_begin
  kmx_curl "http://$KMX_VIP:$KMX_PORT/hostname"
  kmx_add_hostname "$KMX_LINUX $KMX_VIP:$KMX_PORT" "$(printf '%s\n' "$LPODS" | cut -d' ' -f1)"
  if [ -n "$WPODS" ]; then
    kmx_need_service service-vip "$KMX_WINDOWS" || return 0
    kmx_curl "http://$KMX_VIP:$KMX_PORT/"
    if [ "$KMX_RC" -eq 0 ]; then
      kmx_add true "$KMX_WINDOWS $KMX_VIP:$KMX_PORT: HTTP 200 from pod $(kmx_served_by "$KMX_OUT")" "$KMX_CMD"
    else
      kmx_add false "$KMX_WINDOWS $KMX_VIP:$KMX_PORT: $(kmx_first_line "$KMX_OUT")" "$KMX_CMD"
    fi
  fi
  kmx_result service-vip "$ok" "$detail" "$cmds"
}

# Each workload's Service by its cluster DNS name, from a pod of the same OS.
check_service_dns() {
  kmx_workloads service-dns || return 0
  kmx_need_service service-dns "$KMX_LINUX" || return 0
  kmx_begin
  cname=$(kmx_field "$CLIENT" 1) cip=$(kmx_field "$CLIENT" 2) cnode=$(kmx_field "$CLIENT" 3)
  dns="$KMX_LINUX.default.svc.cluster.local"
  kmx_dial "$cip" "$dns" "$KMX_PORT"
  kmx_add_dial "$cname ($cnode) -> $dns:$KMX_PORT" "$(printf '%s\n' "$LPODS" | cut -d' ' -f1)"
  if [ -n "$WPODS" ]; then
    first=$(printf '%s\n' "$WPODS" | sed -n 1p)
    wname=$(kmx_field "$first" 1)
    kmx_iwr "$wname" "'http://$KMX_WINDOWS.default.svc.cluster.local'"
    kmx_add_iwr "$wname ($(kmx_field "$first" 3)) -> $KMX_WINDOWS.default.svc.cluster.local"
  fi
  kmx_result service-dns "$ok" "$detail" "$cmds"
}

# From this controller: the Linux Service's nodePort on every Linux node, the Windows Service's
# on every Windows node (a Windows node cannot use its own NodePort, so none is tried from one).
check_nodeport() {
  kmx_workloads nodeport || return 0
  kmx_begin
  for os in linux windows; do
    if [ "$os" = linux ]; then app=$KMX_LINUX; else app=$KMX_WINDOWS; fi
    [ -n "$app" ] || continue
    kmx_need_service nodeport "$app" || return 0
    sel="kubernetes.io/os=$os"
    if ! nodes=$($K get nodes -l "$sel" \
      -o 'jsonpath={range .items[*]}{.metadata.name} {.status.addresses[?(@.type=="InternalIP")].address}{"\n"}{end}' 2>&1 </dev/null); then
      kmx_add false "kubectl get nodes failed: $(kmx_first_line "$nodes")" "$K get nodes -l $sel"
      continue
    fi
    if [ -z "$(kmx_trim "$nodes")" ] || [ -z "$KMX_NODEPORT" ]; then
      kmx_add false "no $os node or no nodePort of $app (nodes: '$(kmx_trim "$nodes")', nodePort: '$KMX_NODEPORT')" "$K get nodes -l $sel"
      continue
    fi
    while read -r node ip <&3; do
      [ -n "$node" ] || continue
      if [ "$os" = linux ]; then
        kmx_curl "http://$ip:$KMX_NODEPORT/hostname"
        kmx_add_hostname "$app $node $ip:$KMX_NODEPORT" "$(printf '%s\n' "$LPODS" | cut -d' ' -f1)"
      else
        kmx_curl "http://$ip:$KMX_NODEPORT/"
        if [ "$KMX_RC" -eq 0 ]; then
          kmx_add true "$app $node $ip:$KMX_NODEPORT: HTTP 200 from pod $(kmx_served_by "$KMX_OUT")" "$KMX_CMD"
        else
          kmx_add false "$app $node $ip:$KMX_NODEPORT: $(kmx_first_line "$KMX_OUT")" "$KMX_CMD"
        fi
      fi
    done 3<<EOF
$nodes
EOF
  done
  kmx_result nodeport "$ok" "$detail" "$cmds"
}

# The outside URL KMX_OUTBOUND_URL: a TCP connection from the Linux client (agnhost connect), an
# HTTP request from the first Windows pod.
check_outbound() {
  kmx_workloads outbound || return 0
  kmx_begin
  cname=$(kmx_field "$CLIENT" 1) cnode=$(kmx_field "$CLIENT" 3)
  hp=$(kmx_hostport "$KMX_OUTBOUND_URL")
  KMX_CMD="$K exec $cname -- /agnhost connect $hp --timeout=${KMX_T}s"
  KMX_OUT=$(timeout 150 $K exec "$cname" -- /agnhost connect "$hp" "--timeout=${KMX_T}s" 2>&1 </dev/null)
  if [ $? -eq 0 ]; then
    kmx_add true "$cname ($cnode) -> $hp: connected" "$KMX_CMD"
  else
    kmx_add false "$cname ($cnode) -> $hp: $(kmx_first_line "$KMX_OUT")" "$KMX_CMD"
  fi
  if [ -n "$WPODS" ]; then
    first=$(printf '%s\n' "$WPODS" | sed -n 1p)
    wname=$(kmx_field "$first" 1)
    kmx_iwr "$wname" "$KMX_OUTBOUND_PS"
    kmx_add_iwr "$wname ($(kmx_field "$first" 3)) -> $KMX_OUTBOUND_URL"
  fi
  kmx_result outbound "$ok" "$detail" "$cmds"
}
