#!/usr/bin/env bash
# kubemix lab: N Linux test hosts on this machine, each a real OpenSSH sshd with its own
# hostname, host key, private /root and private state directories.
#
#   lab.sh start N DIR [--no-netns] [--nat-nic] [--standins DIR] [--no-sftp HOSTS] [--no-scp HOSTS] [--foreground]
#   (N up to 250, or 1,000 with --no-netns)
#   lab.sh stop DIR
#   lab.sh kill-host DIR NAME      # SIGKILL every process of one host (sshd and its sessions)
#   lab.sh start-host DIR NAME     # start a killed host again (same key, same address)
#   lab.sh status DIR
#
# Hosts live in network namespaces joined by a bridge (10.233.ID.0/24, only inside namespaces we
# create). Where namespaces cannot be created, or with --no-netns, sshd listens on loopback
# addresses 127.ID.0.x instead. ID is a per-lab number so several labs never collide.
# --nat-nic gives every host a first interface like the NAT NIC of Vagrant and many libvirt
# setups: eth0 with 10.0.2.15/24 on every host, the default route through it, reaching nothing;
# the shared network moves to eth1, and each host's /etc/hosts names itself 127.0.1.1 (Debian's
# convention). Tools that take "the default interface" then pick the unreachable NAT address.
#
# --no-sftp HOSTS: those hosts' sshd has no `Subsystem sftp` line (minimal images, appliances:
# SFTP requests are refused). --no-scp HOSTS: those hosts have no scp program (hidden by an
# overlay whiteout in the host's own mount namespace). HOSTS: comma-separated names, or `all`.
#
# A supervisor (this script in `_supervise` mode) is the parent of every sshd: it reaps them
# (PID 1 on these machines does not always reap orphans) and restarts hosts on request.
set -euo pipefail

LAB_SCRIPT="$(readlink -f "${BASH_SOURCE[0]}")"
SSHD="${KMX_LAB_SSHD:-/usr/sbin/sshd}"
# Directories each host sees as its own empty tmpfs. Extend with KMX_LAB_PRIVATE_DIRS (space separated).
PRIVATE_DIRS="/etc/kubernetes /var/lib/kubelet /etc/containerd /var/lib/kubemix-lab /opt/cni /etc/cni /var/lib/etcd ${KMX_LAB_PRIVATE_DIRS:-}"
# Directories each host sees as a private copy-on-write view of this machine's (overlayfs, upper
# layer in the host's tmpfs): what a host writes or removes below them, even whole subdirectories
# such as /var/lib/cni, stays its own. None by default; KMX_LAB_OVERLAY_DIRS (space separated).
OVERLAY_DIRS="${KMX_LAB_OVERLAY_DIRS:-}"
LAB_BIN=/opt/kubemix-lab/bin
REGISTRY=/run/kubemix-lab
READY_TIMEOUT_S="${KMX_LAB_READY_TIMEOUT_S:-30}"

die() {
  echo "lab.sh: $*" >&2
  exit 1
}

usage() {
  sed -n '5,11p' "$LAB_SCRIPT" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

host_name() { printf 'lab-%02d' "$1"; }

# Whether host NAME is in LIST (comma-separated names, or `all`).
host_in() {
  case ",$2," in *",all,"* | *",$1,"*) return 0 ;; esac
  return 1
}

# Reads DIR/lab.env (written at start) into the current shell.
load_env() {
  local dir="$1"
  [ -f "$dir/lab.env" ] || die "no lab in $dir (missing $dir/lab.env)"
  # shellcheck disable=SC1091
  . "$dir/lab.env"
}

pid_alive() {
  local pid="$1" state
  [ -n "$pid" ] && [ -r "/proc/$pid/stat" ] || return 1
  # A zombie still answers kill -0: read the state field instead.
  state="$(sed -E 's/^[0-9]+ \(.*\) ([A-Za-z]).*/\1/' "/proc/$pid/stat" 2>/dev/null || echo X)"
  [ "$state" != "Z" ] && [ "$state" != "X" ]
}

# Picks a free lab id (1..250) from a hash of DIR, claiming it with an atomic mkdir.
claim_id() {
  local dir="$1" base id n
  mkdir -p "$REGISTRY"
  base="$(printf '%s' "$dir" | cksum | cut -d' ' -f1)"
  for n in $(seq 0 249); do
    id=$(((base + n) % 250 + 1))
    if mkdir "$REGISTRY/$id" 2>/dev/null; then
      printf '%s\n' "$dir" >"$REGISTRY/$id/dir"
      echo "$id"
      return 0
    fi
    # A stale claim whose lab directory is gone or stopped may be reused.
    local owner
    owner="$(cat "$REGISTRY/$id/dir" 2>/dev/null || true)"
    if [ "$owner" = "$dir" ] || { [ -n "$owner" ] && [ ! -f "$owner/lab.env" ]; }; then
      printf '%s\n' "$dir" >"$REGISTRY/$id/dir"
      echo "$id"
      return 0
    fi
  done
  die "no free lab id in $REGISTRY"
}

host_address() {
  local mode="$1" id="$2" i="$3"
  if [ "$mode" = netns ]; then
    echo "10.233.$id.$((i + 1))"
  else
    echo "127.$id.$((i / 250)).$((i % 250 + 1))"
  fi
}

write_sshd_config() {
  local dir="$1" name="$2" addr="$3" port="$4"
  cat >"$dir/hosts/$name/sshd_config" <<EOF
ListenAddress $addr:$port
HostKey $dir/hosts/$name/ssh_host_ed25519_key
PidFile none
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
UseDNS no
MaxStartups 100:30:200
MaxSessions 10
AuthorizedKeysFile .ssh/authorized_keys
$(host_in "$name" "$NO_SFTP" || echo 'Subsystem sftp internal-sftp')
SetEnv PATH=$LAB_BIN:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
AcceptEnv LANG LC_*
PrintMotd no
PrintLastLog no
LogLevel INFO
EOF
}

# The command that becomes one host's sshd (run by the supervisor in the background).
launch_host() {
  local dir="$1" name="$2"
  local hostdir="$dir/hosts/$name"
  # Everything below runs inside the host's own mount + UTS namespace: private /root with only
  # the lab key, private state directories, private bin directory first on PATH. The hostname is
  # the host's name, or what DIR/hosts/NAME/hostname says (a cloud instance's user data names it).
  local inner hide_scp="" scp_path
  scp_path="$(command -v scp || true)"
  if host_in "$name" "$NO_SCP" && [ -n "$scp_path" ]; then
    # An overlay of scp's directory with a whiteout for scp: to this host, scp does not exist.
    hide_scp="rm -rf '$hostdir/no-scp'
mkdir -p '$hostdir/no-scp/upper' '$hostdir/no-scp/work'
mknod '$hostdir/no-scp/upper/scp' c 0 0
mount -t overlay kmx-no-scp -o 'lowerdir=$(dirname "$scp_path"),upperdir=$hostdir/no-scp/upper,workdir=$hostdir/no-scp/work' '$(dirname "$scp_path")'"
  fi
  inner="set -e
hostname \"\$(cat '$hostdir/hostname' 2>/dev/null || echo $name)\"
mount --make-rprivate / 2>/dev/null || true
$hide_scp
mount -t tmpfs -o mode=0700 kmx-root /root
mkdir -p /root/.ssh
cp '$dir/id_ed25519.pub' /root/.ssh/authorized_keys
chmod 600 /root/.ssh/authorized_keys
mkdir -p /opt/kubemix-lab
mount -t tmpfs kmx-state /opt/kubemix-lab
n=0
for d in $OVERLAY_DIRS; do
  n=\$((n + 1)); layer=/opt/kubemix-lab/overlay/\$n; mkdir -p \$layer/upper \$layer/work
  mount -t overlay kmx-overlay -o lowerdir=\"\$d\",upperdir=\$layer/upper,workdir=\$layer/work \"\$d\"
done
for d in $PRIVATE_DIRS; do mkdir -p \"\$d\"; mount -t tmpfs kmx-state \"\$d\"; done
mkdir -p $LAB_BIN
if [ -d '$dir/standins' ]; then cp -a '$dir/standins/.' $LAB_BIN/; fi
# A private /etc/hosts naming every lab host, so sudo and friends resolve this host's name.
cp '$dir/etc-hosts' /opt/kubemix-lab/hosts
if [ '$NAT' = yes ]; then sed -i 's/^[0-9.]* $name\$/127.0.1.1 $name/' /opt/kubemix-lab/hosts; fi
mount --bind /opt/kubemix-lab/hosts /etc/hosts
# A host's own os-release (the distribution it plays), when the lab's user put one in its directory.
if [ -f '$hostdir/os-release' ]; then mount --bind '$hostdir/os-release' /etc/os-release; fi
exec '$SSHD' -D -f '$hostdir/sshd_config' -E '$hostdir/sshd.log'"
  # Own PID namespace too: sshd becomes the host's PID 1 and reaps orphans, as init does on a real
  # host (this machine's PID 1 does not always reap), and `ps` shows only the host's processes.
  local ns_flags=(--uts --mount --pid --fork --kill-child --mount-proc --propagation private)
  if [ "$MODE" = netns ]; then
    exec ip netns exec "kmx-lab-$ID-$name" unshare "${ns_flags[@]}" sh -c "$inner"
  elif [ "$PRIVATE" = yes ]; then
    exec unshare "${ns_flags[@]}" sh -c "$inner"
  else
    exec "$SSHD" -D -f "$hostdir/sshd_config" -E "$hostdir/sshd.log"
  fi
}

setup_network() {
  local i name ns veth cluster_if
  ip link add "kmxbr$ID" type bridge
  ip addr add "10.233.$ID.1/24" dev "kmxbr$ID"
  ip link set "kmxbr$ID" up
  for i in $(seq 1 "$COUNT"); do
    name="$(host_name "$i")"
    ns="kmx-lab-$ID-$name"
    veth="kmx${ID}h$i"
    ip netns add "$ns"
    cluster_if=eth0
    if [ "$NAT" = yes ]; then
      # The NAT-like NIC comes first and carries the default route; its peer is attached to
      # nothing, so what is sent there reaches no other host (the NAT address is every host's own).
      cluster_if=eth1
      ip link add "kmx${ID}n$i" type veth peer name eth0 netns "$ns"
      ip link set "kmx${ID}n$i" up
      ip -n "$ns" addr add 10.0.2.15/24 dev eth0
      ip -n "$ns" link set eth0 up
      ip -n "$ns" route add default via 10.0.2.2 dev eth0
    fi
    ip link add "$veth" type veth peer name "$cluster_if" netns "$ns"
    ip link set "$veth" master "kmxbr$ID" up
    ip -n "$ns" addr add "$(host_address netns "$ID" "$i")/24" dev "$cluster_if"
    ip -n "$ns" link set "$cluster_if" up
    ip -n "$ns" link set lo up
  done
}

teardown_network() {
  local id="$1" ns
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^kmx-lab-$id-" || true); do
    ip netns del "$ns" 2>/dev/null || true
  done
  ip link del "kmxbr$id" 2>/dev/null || true
}

tcp_open() {
  (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
}

write_outputs() {
  local dir="$1" i name addr
  {
    echo "# kubemix lab ($MODE), written by scripts/lab/lab.sh"
    echo "all:"
    echo "  vars:"
    echo "    ansible_python_interpreter: /usr/bin/python3"
    echo "    ansible_ssh_common_args: '-o UserKnownHostsFile=$dir/known_hosts -o StrictHostKeyChecking=yes -o IdentitiesOnly=yes'"
    echo "  hosts:"
    for i in $(seq 1 "$COUNT"); do
      name="$(host_name "$i")"
      addr="$(host_address "$MODE" "$ID" "$i")"
      echo "    $name:"
      echo "      ansible_host: $addr"
      echo "      ansible_port: $PORT"
      echo "      ansible_user: root"
      echo "      ansible_ssh_private_key_file: $dir/id_ed25519"
    done
    echo "  children:"
    echo "    lab:"
    echo "      hosts:"
    for i in $(seq 1 "$COUNT"); do echo "        $(host_name "$i"): {}"; done
  } >"$dir/inventory.yml.tmp"
  mv "$dir/inventory.yml.tmp" "$dir/inventory.yml"
  : >"$dir/known_hosts"
  : >"$dir/ssh_config"
  for i in $(seq 1 "$COUNT"); do
    name="$(host_name "$i")"
    addr="$(host_address "$MODE" "$ID" "$i")"
    local entry="$addr"
    [ "$PORT" = 22 ] || entry="[$addr]:$PORT"
    echo "$entry $(cut -d' ' -f1,2 "$dir/hosts/$name/ssh_host_ed25519_key.pub")" >>"$dir/known_hosts"
    cat >>"$dir/ssh_config" <<EOF
Host $name
  HostName $addr
  Port $PORT
  User root
  IdentityFile $dir/id_ed25519
  IdentitiesOnly yes
  UserKnownHostsFile $dir/known_hosts
  StrictHostKeyChecking yes

EOF
  done
}

cmd_start() {
  local count="" dir="" no_netns=no standins="" foreground=no no_sftp="" no_scp="" nat=no
  while [ $# -gt 0 ]; do
    case "$1" in
      --no-netns) no_netns=yes ;;
      --nat-nic) nat=yes ;;
      --standins) standins="${2:?--standins needs a directory}"; shift ;;
      --no-sftp) no_sftp="${2:?--no-sftp needs host names or all}"; shift ;;
      --no-scp) no_scp="${2:?--no-scp needs host names or all}"; shift ;;
      --foreground) foreground=yes ;;
      -*) die "unknown option $1" ;;
      *) if [ -z "$count" ]; then count="$1"; elif [ -z "$dir" ]; then dir="$1"; else die "unexpected argument $1"; fi ;;
    esac
    shift
  done
  [ -n "$count" ] && [ -n "$dir" ] || usage
  # A namespaced lab's hosts share one /24 (10.233.ID.0/24); loopback hosts take 127.ID.x.y, 250
  # per x, so the benchmark's scaling curve can go to 1,000 hosts.
  local max=250
  [ "$no_netns" = no ] || max=1000
  [[ "$count" =~ ^[0-9]+$ ]] && [ "$count" -ge 1 ] && [ "$count" -le "$max" ] || die "N must be 1..$max, got $count"
  [[ "$no_sftp$no_scp" =~ ^[A-Za-z0-9,-]*$ ]] || die "--no-sftp/--no-scp take host names separated by commas, or all"
  [ "$(id -u)" = 0 ] || die "the lab needs root (namespaces, mounts, port 22)"
  [ -x "$SSHD" ] || die "$SSHD not found: apt-get install -y --no-install-recommends openssh-server"
  mkdir -p "$dir"
  dir="$(readlink -f "$dir")"
  case "$dir/" in
    /root/* | /opt/kubemix-lab/*) die "lab DIR must not be under /root or /opt/kubemix-lab (hosts get private copies of those): $dir" ;;
  esac
  if [ -f "$dir/supervisor.pid" ] && pid_alive "$(cat "$dir/supervisor.pid")"; then
    die "a lab is already running in $dir (supervisor pid $(cat "$dir/supervisor.pid")); run: lab.sh stop $dir"
  fi
  if [ -n "$standins" ]; then
    [ -d "$standins" ] || die "--standins: not a directory: $standins"
    rm -rf "$dir/standins"
    cp -a "$standins" "$dir/standins"
  fi
  rm -f "$dir/ready" "$dir/failed" "$dir/stopping" "$dir/pids"
  if [ "$foreground" = yes ]; then
    exec "$LAB_SCRIPT" _supervise "$count" "$dir" "$no_netns" "$no_sftp" "$no_scp" "$nat"
  fi
  setsid "$LAB_SCRIPT" _supervise "$count" "$dir" "$no_netns" "$no_sftp" "$no_scp" "$nat" </dev/null >"$dir/supervisor.log" 2>&1 &
  wait_ready "$dir" || {
    cat "$dir/failed" >&2 2>/dev/null || cat "$dir/supervisor.log" >&2
    exit 1
  }
  echo "lab: $count hosts up in $dir ($(. "$dir/lab.env"; echo "$MODE"))"
}

wait_ready() {
  local dir="$1" n
  for n in $(seq 1 $((READY_TIMEOUT_S * 20))); do
    [ -f "$dir/ready" ] && return 0
    [ -f "$dir/failed" ] && return 1
    sleep 0.05
  done
  echo "lab.sh: timed out waiting for the lab in $dir" >&2
  return 1
}

# Runs in the foreground as the parent of every sshd until `stop`.
cmd_supervise() {
  COUNT="$1"
  local dir="$2" no_netns="$3"
  NO_SFTP="${4:-}"
  NO_SCP="${5:-}"
  NAT="${6:-no}"
  declare -gA PIDS=()
  echo "$$" >"$dir/supervisor.pid"
  set -E
  trap 'fail "supervisor error on line $LINENO"' ERR
  ID="$(claim_id "$dir")"
  PORT="${KMX_LAB_PORT:-22}"
  MODE=loopback
  PRIVATE=no
  if [ "$no_netns" != yes ] && ip netns add "kmx-lab-$ID-probe" 2>/dev/null; then
    ip netns del "kmx-lab-$ID-probe"
    MODE=netns
  fi
  if [ "$MODE" = netns ] || unshare --uts --mount --pid --fork --mount-proc --propagation private true 2>/dev/null; then PRIVATE=yes; fi
  [ -z "$NO_SCP" ] || [ "$PRIVATE" = yes ] || fail "--no-scp needs mount namespaces (unshare), which this machine does not allow"
  [ "$NAT" != yes ] || [ "$MODE" = netns ] || fail "--nat-nic needs network namespaces (this machine cannot create them, or --no-netns was given)"
  # The private directories' mount points, on this machine: they stay (empty) after the lab stops,
  # as /var/lib/kubemix-tests-remote does after the tests. Removing one would not be safe: another
  # lab may be running on it, and an rmdir of a directory that is a mount point in another mount
  # namespace succeeds and detaches that mount there, from under its host (Linux's detach_mounts,
  # "vfs: Lazily remove mounts on unlinked files and directories").
  for d in $PRIVATE_DIRS /opt/kubemix-lab; do mkdir -p "$d" 2>/dev/null || true; done
  mkdir -p /run/sshd
  chmod 0755 /run/sshd
  printf 'ID=%s\nMODE=%s\nPORT=%s\nCOUNT=%s\nPRIVATE=%s\nNO_SFTP=%s\nNO_SCP=%s\nNAT=%s\n' "$ID" "$MODE" "$PORT" "$COUNT" "$PRIVATE" "$NO_SFTP" "$NO_SCP" "$NAT" >"$dir/lab.env"
  [ -f "$dir/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C kubemix-lab -f "$dir/id_ed25519"
  local i name addr
  if [ "$MODE" = netns ]; then
    teardown_network "$ID"
    setup_network
  fi
  printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n' >"$dir/etc-hosts"
  for i in $(seq 1 "$COUNT"); do
    echo "$(host_address "$MODE" "$ID" "$i") $(host_name "$i")" >>"$dir/etc-hosts"
  done
  for i in $(seq 1 "$COUNT"); do
    name="$(host_name "$i")"
    addr="$(host_address "$MODE" "$ID" "$i")"
    mkdir -p "$dir/hosts/$name"
    [ -f "$dir/hosts/$name/ssh_host_ed25519_key" ] ||
      ssh-keygen -q -t ed25519 -N '' -C "$name" -f "$dir/hosts/$name/ssh_host_ed25519_key"
    write_sshd_config "$dir" "$name" "$addr" "$PORT"
    : >"$dir/hosts/$name/sshd.log"
  done
  # Every host launched, then the pid list written once: written after each launch, as a restart
  # does, it was rewritten whole per host and a 1,000-host lab never finished starting.
  for i in $(seq 1 "$COUNT"); do
    launch_one "$dir" "$(host_name "$i")"
  done
  write_pids "$dir"
  write_outputs "$dir"
  for i in $(seq 1 "$COUNT"); do
    wait_host "$dir" "$(host_name "$i")" || fail "$(host_name "$i") did not accept TCP on $(host_address "$MODE" "$ID" "$i"):$PORT within ${READY_TIMEOUT_S}s: $(tail -3 "$dir/hosts/$(host_name "$i")/sshd.log" | tr '\n' ' ')"
  done
  trap - ERR
  RESTART=0
  # Installed before `ready`: an early start-host must not kill the supervisor with USR1.
  trap 'RESTART=1' USR1
  touch "$dir/ready"
  while [ ! -e "$dir/stopping" ]; do
    if [ "$RESTART" = 1 ]; then
      RESTART=0
      restart_requested "$dir"
    fi
    # `wait` returns when every child is gone or when USR1 arrives.
    wait || true
    if [ -z "$(jobs -p)" ] && [ ! -e "$dir/stopping" ] && [ "$RESTART" = 0 ]; then sleep 0.2; fi
  done
  wait || true
}

# Start failed: undo what was done, tell `start` why, and exit.
fail() {
  local dir="$LAB_DIR_FOR_FAIL" pid
  trap - ERR
  for pid in "${PIDS[@]:-}"; do [ -z "$pid" ] || kill -KILL "$pid" 2>/dev/null || true; done
  if [ "${MODE:-}" = netns ] && [ -n "${ID:-}" ]; then teardown_network "$ID"; fi
  [ -z "${ID:-}" ] || rm -rf "${REGISTRY:?}/$ID"
  rm -f "$dir/supervisor.pid" "$dir/lab.env"
  echo "$*" >"$dir/failed"
  exit 1
}

launch_one() {
  local dir="$1" name="$2"
  (launch_host "$dir" "$name") </dev/null >>"$dir/hosts/$name/sshd.log" 2>&1 &
  PIDS[$name]=$!
  echo "$!" >"$dir/hosts/$name/pid"
}

start_one() {
  launch_one "$@"
  write_pids "$1"
}

write_pids() {
  local dir="$1" n
  : >"$dir/pids.tmp"
  for n in $(printf '%s\n' "${!PIDS[@]}" | sort); do echo "$n ${PIDS[$n]}" >>"$dir/pids.tmp"; done
  mv "$dir/pids.tmp" "$dir/pids"
}

wait_host() {
  local dir="$1" name="$2" n addr i
  i="$((10#${name#lab-}))"
  addr="$(host_address "$MODE" "$ID" "$i")"
  for n in $(seq 1 $((READY_TIMEOUT_S * 50))); do
    tcp_open "$addr" "$PORT" && return 0
    pid_alive "${PIDS[$name]}" || return 1
    sleep 0.02
  done
  return 1
}

# The answer to start-host, written whole and renamed into place: start-host polls for the file and
# reads it, and once read it as empty (created by `>`, not yet written) and failed a host that was up.
mark_restarted() {
  local dir="$1" name="$2" answer="$3"
  echo "$answer" >"$dir/hosts/$name/restarted.partial"
  mv "$dir/hosts/$name/restarted.partial" "$dir/hosts/$name/restarted"
}

restart_requested() {
  local dir="$1" name
  for f in "$dir"/hosts/*/restart; do
    [ -e "$f" ] || continue
    name="$(basename "$(dirname "$f")")"
    rm -f "$f"
    if ! pid_alive "${PIDS[$name]:-}"; then
      start_one "$dir" "$name"
      if wait_host "$dir" "$name"; then
        mark_restarted "$dir" "$name" up
      else
        mark_restarted "$dir" "$name" "failed (pid ${PIDS[$name]} alive: $(pid_alive "${PIDS[$name]}" && echo yes || echo no))"
      fi
    else
      mark_restarted "$dir" "$name" up
    fi
  done
}

# PIDs of every process belonging to one host: its namespace's processes, or (loopback mode)
# the processes sharing the host sshd's mount namespace.
host_pids() {
  local dir="$1" name="$2" pid ns p
  pid="$(cat "$dir/hosts/$name/pid" 2>/dev/null || true)"
  if [ "$MODE" = netns ]; then
    ip netns pids "kmx-lab-$ID-$name" 2>/dev/null || true
  elif [ -n "$pid" ] && pid_alive "$pid"; then
    if [ "$PRIVATE" = yes ]; then
      ns="$(readlink "/proc/$pid/ns/mnt" 2>/dev/null || true)"
      for p in /proc/[0-9]*; do
        [ "$(readlink "$p/ns/mnt" 2>/dev/null || true)" = "$ns" ] && echo "${p#/proc/}"
      done
    else
      echo "$pid"
      ps -o pid= --ppid "$pid" 2>/dev/null || true
    fi
  fi
}

# Every process of every host of the lab, one per line. host_pids per host would read all of /proc
# once per host (a readlink per process): a 500-host lab took minutes to stop. Here one `ls -l` lists
# every process's mount namespace, and the hosts' namespaces are picked from it; this shell's own
# namespace never counts, so a host that shares it cannot take the machine's processes down.
lab_pids() {
  local dir="$1" h pid path target self
  if [ "$MODE" = netns ] || [ "$PRIVATE" != yes ]; then
    for h in "$dir"/hosts/*/; do
      [ -d "$h" ] && host_pids "$dir" "$(basename "$h")"
    done
    return 0
  fi
  local -A ns_of=() wanted=()
  while read -r path target; do
    pid="${path#/proc/}"
    ns_of["${pid%%/*}"]="$target"
  done < <(ls -l /proc/[0-9]*/ns/mnt 2>/dev/null | awk '{ print $(NF-2), $NF }')
  self="$(readlink /proc/self/ns/mnt 2>/dev/null || true)"
  for h in "$dir"/hosts/*/; do
    pid="$(cat "$h/pid" 2>/dev/null || true)"
    [ -n "$pid" ] && [ -n "${ns_of[$pid]:-}" ] && [ "${ns_of[$pid]}" != "$self" ] && wanted["${ns_of[$pid]}"]=1
  done
  for pid in "${!ns_of[@]}"; do
    [ -n "${wanted[${ns_of[$pid]}]:-}" ] && echo "$pid"
  done
  return 0
}

cmd_kill_host() {
  local dir="${1:?DIR}" name="${2:?NAME}"
  dir="$(readlink -f "$dir")"
  load_env "$dir"
  [ -d "$dir/hosts/$name" ] || die "no host $name in $dir"
  local pids
  pids="$(host_pids "$dir" "$name" | tr '\n' ' ')"
  # shellcheck disable=SC2086
  [ -z "${pids// /}" ] || kill -KILL $pids 2>/dev/null || true
  local pid n
  pid="$(cat "$dir/hosts/$name/pid" 2>/dev/null || true)"
  for n in $(seq 1 100); do pid_alive "$pid" || return 0; sleep 0.05; done
  echo "lab.sh: $name (pid $pid) did not die" >&2
  return 1
}

cmd_start_host() {
  local dir="${1:?DIR}" name="${2:?NAME}" n
  dir="$(readlink -f "$dir")"
  load_env "$dir"
  [ -d "$dir/hosts/$name" ] || die "no host $name in $dir"
  local sup
  sup="$(cat "$dir/supervisor.pid" 2>/dev/null || true)"
  pid_alive "$sup" || die "lab in $dir is not running"
  rm -f "$dir/hosts/$name/restarted"
  touch "$dir/hosts/$name/restart"
  kill -USR1 "$sup"
  for n in $(seq 1 $((READY_TIMEOUT_S * 20))); do
    if [ -f "$dir/hosts/$name/restarted" ]; then
      [ "$(cat "$dir/hosts/$name/restarted")" = up ] && return 0
      die "$name did not come back: $(cat "$dir/hosts/$name/restarted"): $(tail -3 "$dir/hosts/$name/sshd.log" | tr '\n' ' ')"
    fi
    sleep 0.05
  done
  die "timed out restarting $name"
}

cmd_stop() {
  local dir="${1:?DIR}" n sup
  [ -d "$dir" ] || return 0
  dir="$(readlink -f "$dir")"
  [ -f "$dir/lab.env" ] || { rm -f "$dir/supervisor.pid"; return 0; }
  load_env "$dir"
  touch "$dir/stopping"
  sup="$(cat "$dir/supervisor.pid" 2>/dev/null || true)"
  local h pids alive
  pids="$(lab_pids "$dir" | tr '\n' ' ')"
  # shellcheck disable=SC2086
  [ -z "${pids// /}" ] || kill -KILL $pids 2>/dev/null || true
  # Up to 5 s for every host's process to be gone, as cmd_kill_host waits for one.
  for n in $(seq 1 100); do
    alive=no
    for h in "$dir"/hosts/*/; do
      pid_alive "$(cat "$h/pid" 2>/dev/null || true)" && { alive=yes; break; }
    done
    [ "$alive" = no ] && break
    sleep 0.05
  done
  if [ -n "$sup" ]; then
    kill -USR1 "$sup" 2>/dev/null || true
    for n in $(seq 1 100); do pid_alive "$sup" || break; sleep 0.05; done
    pid_alive "$sup" && kill -KILL "$sup" 2>/dev/null || true
  fi
  if [ "$MODE" = netns ]; then teardown_network "$ID"; fi
  if [ -f "$REGISTRY/$ID/dir" ] && [ "$(cat "$REGISTRY/$ID/dir")" = "$dir" ]; then rm -rf "${REGISTRY:?}/$ID"; fi
  rm -f "$dir/supervisor.pid" "$dir/ready" "$dir/stopping" "$dir/lab.env" "$dir/pids"
}

cmd_status() {
  local dir="${1:?DIR}"
  dir="$(readlink -f "$dir")"
  load_env "$dir"
  echo "mode=$MODE id=$ID count=$COUNT port=$PORT"
  local line name pid
  while read -r name pid; do
    if pid_alive "$pid"; then echo "$name up pid $pid"; else echo "$name down"; fi
  done <"$dir/pids"
}

main() {
  local cmd="${1:-}"
  [ $# -gt 0 ] && shift
  case "$cmd" in
    start) cmd_start "$@" ;;
    stop) cmd_stop "$@" ;;
    kill-host) cmd_kill_host "$@" ;;
    start-host) cmd_start_host "$@" ;;
    status) cmd_status "$@" ;;
    _supervise)
      LAB_DIR_FOR_FAIL="$2"
      cmd_supervise "$@"
      ;;
    *) usage ;;
  esac
}

main "$@"
