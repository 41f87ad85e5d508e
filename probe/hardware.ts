/** Hardware and system-software facts of the inference host: GPUs, CPU, RAM, storage, OS, drivers, runtimes. */
import type { Gpu, Hardware, NameVersion, Storage } from "../contract/mod.ts";
import type { MissingMap, ProbeDeps } from "./_deps.ts";
import { type GpuReading, parseCpuinfoModel, parseMeminfoTotalBytes, parseOsRelease } from "./_hardware_parsers.ts";
import { probeAmd, probeApple, probeNvidia, type VendorGpus } from "./_gpus.ts";

/** Options of probeHardware. */
export interface ProbeHardwareOptions {
  /** Other workloads the operator declared (`--background`, repeatable). */
  backgroundWorkloads?: readonly string[];
}

/** The hardware section plus the software facts read from the same tools. */
export interface HardwareFacts {
  hardware: Hardware;
  os: NameVersion | null;
  /** Kernel release (uname -r); not a contract field, for `extensions`. */
  kernel: string | null;
  drivers: NameVersion[] | null;
  runtime: NameVersion[] | null;
  /** Absolute JSON Pointers ("/hardware/cpu", "/software/drivers") -> why the value is null. */
  missing: MissingMap;
}

/** Probes GPUs (NVIDIA, AMD, Apple silicon), CPU, RAM, storage and OS. Never throws; unknowns are null + reason. */
export async function probeHardware(deps: ProbeDeps, options: ProbeHardwareOptions = {}): Promise<HardwareFacts> {
  const missing: MissingMap = {};
  const kernelRelease = deps.osRelease();
  const kernel = kernelRelease.ok ? kernelRelease.value : null;
  let gpus: Gpu[] | null;
  let drivers: NameVersion[] | null;
  let runtime: NameVersion[] | null;
  let cpu: string | null = null;
  let ramBytes: number | null = null;
  let os: NameVersion | null = null;

  if (deps.platform === "darwin" && deps.arch === "arm64") {
    const apple = await probeApple(deps);
    gpus = readingsToGpus(apple.gpus, missing);
    if (gpus.length === 0) {
      gpus = null;
      missing["/hardware/gpus"] = apple.reason ?? "no Apple GPU found";
    }
    drivers = null;
    missing["/software/drivers"] = "not applicable: Apple silicon has no separate GPU driver";
    runtime = apple.runtime.length > 0 ? apple.runtime : null;
    if (!runtime) missing["/software/runtime"] = apple.notes.metal ?? "macOS version unknown";
    cpu = apple.chip;
    ramBytes = apple.memoryBytes;
    if (apple.macosVersion) os = { name: "macOS", version: apple.macosVersion };
    else missing["/software/os"] = apple.notes.metal ?? "macOS version unknown";
  } else {
    const vendors = [await probeNvidia(deps), await probeAmd(deps)];
    const found = vendors.filter((v) => v.gpus.length > 0);
    gpus = found.length > 0 ? readingsToGpus(found.flatMap((v) => v.gpus), missing) : null;
    if (!gpus) missing["/hardware/gpus"] = `no GPU found: ${vendors.map((v) => v.reason).join("; ")}`;
    drivers = collect(found, "drivers");
    runtime = collect(found, "runtime");
    if (!drivers) missing["/software/drivers"] = reasonFor(found, vendors, "gpu-driver");
    if (!runtime) missing["/software/runtime"] = reasonFor(found, vendors, "cuda");
  }

  if (cpu === null) {
    if (deps.platform === "linux") {
      const cpuinfo = await deps.readText("/proc/cpuinfo");
      cpu = cpuinfo.ok ? parseCpuinfoModel(cpuinfo.value) : null;
      if (cpu === null) {
        const fallback = deps.cpuModel();
        cpu = fallback.ok ? fallback.value : null;
        if (cpu === null) missing["/hardware/cpu"] = cpuinfo.ok ? "/proc/cpuinfo names no CPU model" : cpuinfo.reason;
      }
    } else {
      const model = deps.cpuModel();
      cpu = model.ok ? model.value : null;
      if (!model.ok) missing["/hardware/cpu"] = model.reason;
    }
  }

  if (ramBytes === null) {
    const meminfo = deps.platform === "linux" ? await deps.readText("/proc/meminfo") : null;
    ramBytes = meminfo?.ok ? parseMeminfoTotalBytes(meminfo.value) : null;
    if (ramBytes === null) {
      const total = deps.totalMemBytes();
      ramBytes = total.ok ? total.value : null;
      if (!total.ok) missing["/hardware/ram_bytes"] = total.reason;
    }
  }

  const storage = deps.platform === "linux" ? await probeLinuxStorage(deps, missing) : null;
  if (storage === null && !missing["/hardware/storage"]) {
    missing["/hardware/storage"] = `not probed on ${deps.platform}: storage is read from Linux sysfs only`;
  }

  if (os === null && !missing["/software/os"]) {
    if (deps.platform === "linux") {
      const release = await deps.readText("/etc/os-release");
      const fallback = release.ok ? null : await deps.readText("/usr/lib/os-release");
      const text = release.ok ? release.value : fallback?.ok ? fallback.value : null;
      os = text === null ? null : parseOsRelease(text);
      if (!os) {
        missing["/software/os"] = text === null && !release.ok
          ? release.reason
          : "os-release names no NAME and VERSION_ID";
      }
    } else if (deps.platform === "win32" && kernel) {
      os = { name: "Windows", version: kernel };
    } else if (kernel) {
      os = { name: deps.platform, version: kernel };
    } else {
      missing["/software/os"] = kernelRelease.ok ? "unknown operating system" : kernelRelease.reason;
    }
  }

  const hardware: Hardware = {
    gpus,
    cpu,
    ram_bytes: ramBytes,
    storage,
    background_workloads: [...(options.backgroundWorkloads ?? [])],
  };
  return { hardware, os, kernel, drivers, runtime, missing };
}

function readingsToGpus(readings: GpuReading[], missing: MissingMap): Gpu[] {
  return readings.map((reading, position) => {
    for (const [field, reason] of Object.entries(reading.missing)) {
      missing[`/hardware/gpus/${position}/${field}`] = reason;
    }
    return {
      device_index: reading.deviceIndex,
      name: reading.name,
      memory_bytes: reading.memoryBytes,
      memory_kind: reading.memoryKind,
      power_limit_w: reading.powerLimitW,
    };
  });
}

function collect(found: VendorGpus[], key: "drivers" | "runtime"): NameVersion[] | null {
  const entries = found.flatMap((v) => v[key]);
  return entries.length > 0 ? entries : null;
}

function reasonFor(found: VendorGpus[], all: VendorGpus[], note: string): string {
  if (found.length === 0) return `no GPU tool answered: ${all.map((v) => v.reason).join("; ")}`;
  const notes = found.flatMap((v) => Object.values(v.notes));
  return notes.length > 0 ? notes.join("; ") : `no ${note} version reported`;
}

const SKIPPED_BLOCK_DEVICES = /^(loop|ram|zram|dm-|md|sr|fd|nbd|mtdblock)/;

async function probeLinuxStorage(deps: ProbeDeps, missing: MissingMap): Promise<Storage[] | null> {
  const names = await deps.readDir("/sys/block");
  if (!names.ok) {
    missing["/hardware/storage"] = names.reason;
    return null;
  }
  const storage: Storage[] = [];
  for (const name of names.value.filter((n) => !SKIPPED_BLOCK_DEVICES.test(n))) {
    const position = storage.length;
    const base = `/sys/block/${name}`;
    const rotational = await deps.readText(`${base}/queue/rotational`);
    const model = await deps.readText(`${base}/device/model`);
    const resolved = await deps.realPath(base);
    const bus = busOf(name, resolved.ok ? resolved.value : "");
    let kind: string | null = null;
    if (rotational.ok && rotational.value.trim() === "1") kind = "hdd";
    else if (rotational.ok && rotational.value.trim() === "0") kind = "ssd";
    if (kind === null) {
      missing[`/hardware/storage/${position}/kind`] = rotational.ok
        ? "sysfs rotational flag is unreadable"
        : rotational.reason;
    }
    if (kind === "hdd" && bus === "virtio") {
      kind = null;
      missing[`/hardware/storage/${position}/kind`] = "virtual disk (virtio): the host's medium is unknown";
    }
    const modelName = model.ok && model.value.trim() !== "" ? model.value.trim() : null;
    if (modelName === null) {
      missing[`/hardware/storage/${position}/model`] = model.ok ? "sysfs model is empty" : model.reason;
    }
    if (bus === null) {
      missing[`/hardware/storage/${position}/bus`] = resolved.ok
        ? "sysfs device path names no known bus"
        : resolved.reason;
    }
    storage.push({ kind, model: modelName, bus });
  }
  return storage;
}

function busOf(name: string, devicePath: string): string | null {
  if (name.startsWith("nvme") || devicePath.includes("/nvme")) return "nvme";
  if (devicePath.includes("/usb")) return "usb";
  if (name.startsWith("mmcblk")) return "mmc";
  if (devicePath.includes("/virtio")) return "virtio";
  if (/\/ata\d+\//.test(devicePath)) return "sata";
  if (/\/host\d+\//.test(devicePath)) return "scsi";
  return null;
}
