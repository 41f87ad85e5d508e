#!/usr/bin/env bash
# A one-node local Slurm cluster in a temporary folder: a munge key, munged, a minimal slurm.conf (this host as the
# only node, at least 4 CPUs, one partition that oversubscribes), slurmctld and slurmd in the foreground as children of
# this shell, so that their PIDs are known and each is stopped by its PID. Source it; call cluster_start DIR, then
# cluster_stop (also on EXIT). Needs root (CI runs as root) and Debian's slurm-wlm and munge.
# shellcheck shell=bash

CLUSTER_PIDS=()

cluster_start() {
  local dir=$1 node cpus i
  node=$(hostname -s)
  # At least 4 CPUs are declared (config_overrides lets slurmd accept more than it has), so that a job of 4 tasks
  # on this one node fits --ntasks-per-node=4; the tasks then share the real cores (--overcommit).
  cpus=$(nproc)
  [ "$cpus" -lt 4 ] && cpus=4
  mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/munge"
  chmod 700 "$dir/munge"
  head -c 1024 /dev/urandom >"$dir/munge/munge.key"
  chmod 400 "$dir/munge/munge.key"
  /usr/sbin/munged --foreground --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/munged.seed" --log-file="$dir/log/munged.log" \
    >"$dir/log/munged.out" 2>&1 &
  CLUSTER_PIDS+=("$!")
  for i in $(seq 50); do [ -S "$dir/munge/munge.socket" ] && break; sleep 0.1; done
  cat >"$dir/slurm.conf" <<CONF
ClusterName=strata-ci
SlurmctldHost=$node
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
SlurmctldPort=$((20000 + RANDOM % 20000))
SlurmdPort=$((40000 + RANDOM % 20000))
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
NodeName=$node CPUs=$cpus State=UNKNOWN
PartitionName=ci Nodes=$node Default=YES MaxTime=30 State=UP OverSubscribe=FORCE:4
CONF
  export SLURM_CONF="$dir/slurm.conf"
  /usr/sbin/slurmctld -D -i -f "$SLURM_CONF" >"$dir/log/slurmctld.out" 2>&1 &
  CLUSTER_PIDS+=("$!")
  /usr/sbin/slurmd -D -f "$SLURM_CONF" >"$dir/log/slurmd.out" 2>&1 &
  CLUSTER_PIDS+=("$!")
  for i in $(seq 300); do
    if sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then return 0; fi
    sleep 0.2
  done
  echo "the local Slurm cluster did not come up; its logs:" >&2
  tail -n 20 "$dir"/log/* >&2
  return 1
}

cluster_stop() {
  local pid
  for pid in "${CLUSTER_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${CLUSTER_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  CLUSTER_PIDS=()
}
