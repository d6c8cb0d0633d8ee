#!/usr/bin/env bash
# slurm-single-node.sh: a one-machine Slurm cluster (this host is controller
# and the only compute node), for testing `dpaudit run --executor slurm`.
#
# Idempotent: rerunning reinstalls nothing, rewrites the same config and
# restarts the daemons only when they are not answering. Needs root and apt
# (Debian's slurm-wlm, 22.05 on bookworm). Facts this relies on (checked on
# Debian 12): proctrack/linuxproc + task/none and NO cgroup.conf (22.05 has
# no CgroupPlugin=disabled and slurmd fails when one is written), SlurmUser
# root, select/cons_tres, a munge key we create, accounting disabled (so
# sacct does not work; dpaudit tracks tasks with squeue/scontrol instead).
set -euo pipefail

if [ "$(id -u)" != 0 ]; then
	echo "slurm-single-node: must run as root (installs packages, starts daemons)" >&2
	exit 1
fi

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# A second try: a dpkg interrupted earlier (or a concurrent apt) makes
	# the first one fail with "dpkg returned an error code".
	apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null ||
		{ dpkg --configure -a || true; apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null; }
fi

host=$(hostname -s)
cpus=$(nproc)
[ "$cpus" -gt 2 ] && cpus=2 # keep the test cluster small on shared machines
# RealMemory: 80% of the machine in MB, so slurmd's own check never drains the node.
mem_mb=$(awk '/MemTotal/ {printf "%d", $2 / 1024 * 0.8}' /proc/meminfo)

# munge: a key of our own (the package may not create one in containers).
install -d -m 0700 -o munge -g munge /etc/munge /var/log/munge /var/lib/munge
install -d -m 0755 -o munge -g munge /run/munge
if [ ! -s /etc/munge/munge.key ]; then
	dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
	chown munge:munge /etc/munge/munge.key
	chmod 0400 /etc/munge/munge.key
fi
if ! munge -n >/dev/null 2>&1; then
	su -s /bin/sh munge -c 'munged --force' 2>/dev/null || munged --force
	for _ in $(seq 50); do munge -n >/dev/null 2>&1 && break; sleep 0.1; done
fi

conf=/etc/slurm/slurm.conf
install -d /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
rm -f /etc/slurm/cgroup.conf
new=$(mktemp)
cat >"$new" <<CONF
# Written by dpaudit scripts/slurm-single-node.sh
ClusterName=dpaudit
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MaxArraySize=100001
MaxJobCount=200000
MinJobAge=300
SchedulerParameters=sched_interval=1,batch_sched_delay=0
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
changed=0
if ! cmp -s "$new" "$conf"; then
	install -m 0644 "$new" "$conf"
	changed=1
fi
rm -f "$new"

running() { [ -s "/run/$1.pid" ] && kill -0 "$(cat "/run/$1.pid")" 2>/dev/null; }
if [ "$changed" = 1 ]; then
	# Config changed: restart whatever runs so it reads the new file.
	# (by pid file: only the daemons this config started)
	for f in /run/slurmd.pid /run/slurmctld.pid; do
		[ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
	done
	sleep 1
fi
running slurmctld || slurmctld
running slurmd || slurmd

for i in $(seq 60); do
	state=$(sinfo -h -n "$host" -o '%T' 2>/dev/null || true)
	case "$state" in
	idle* | mixed* | allocated*)
		echo "slurm-single-node: $host is $state (CPUs=$cpus RealMemory=${mem_mb}MB)"
		exit 0
		;;
	down* | drain*)
		scontrol update NodeName="$host" State=RESUME 2>/dev/null || true
		;;
	esac
	sleep 1
done
echo "slurm-single-node: node never became idle; last state '${state:-none}'" >&2
tail -n 20 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2 || true
exit 1
