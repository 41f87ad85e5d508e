/** Hardware and system-software facts of the inference host: GPUs, CPU, RAM, storage, OS, drivers, runtimes. */
import type { Gpu, Hardware, NameVersion, Storage } from "../contract/mod.ts";
import type { MissingMap, ProbeDeps } from "./_deps.ts";
import {
  type GpuReading,
  type LsblkDevice,
  parseCpuinfoModel,
  parseLsblk,
  parseMeminfoTotalBytes,
  parseOsRelease,
  parseVisibleDevices,
} from "./_hardware_parsers.ts";
import { probeAmd, probeApple, probeNvidia, type VendorGpus } from "./_gpus.ts";

/** Options of probeHardware. */
export interface ProbeHardwareOptions {
  /** Other workloads the operator declared (`--background`, repeatable). */
  backgroundWorkloads?: readonly string[];
  /** Variables the engine gets on top of the runner's environment (a profile's env), for the device selection. */
  engineEnv?: Readonly<Record<string, string>>;
}

/**
 * Which GPUs the engine is allowed to use: CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES as the engine's environment
 * has them (the runner's, with a profile's engine env on top), and the device indices they select.
 */
export interface DeviceSelection {
  cuda_visible_devices: string | null;
  hip_visible_devices: string | null;
  /** Selected device indices; null when they cannot be told (a value that names UUIDs, a refused read). */
  selected_device_indices: number[] | null;
  /** How the selection was read, or why it is null. */
  reason: string;
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
  /** The device selection of the engine's environment (not a contract field, for `extensions`). */
  deviceSelection: DeviceSelection;
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

  if (cpu === null) cpu = await cpuModelOf(deps, missing);

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
    missing["/hardware/storage"] = `not probed on ${deps.platform}: storage is read from lsblk or sysfs on Linux only`;
  }

  if (os === null && !missing["/software/os"]) os = await osOf(deps, kernelRelease, missing);

  const hardware: Hardware = {
    gpus,
    cpu,
    ram_bytes: ramBytes,
    storage,
    background_workloads: [...(options.backgroundWorkloads ?? [])],
  };
  const deviceSelection = selectedDevices(deps, gpus, options.engineEnv ?? {});
  return { hardware, os, kernel, drivers, runtime, missing, deviceSelection };
}

/** The CPU's model: /proc/cpuinfo on Linux, else (or when it names none) the runtime's; null with the reason. */
async function cpuModelOf(deps: ProbeDeps, missing: MissingMap): Promise<string | null> {
  if (deps.platform === "linux") {
    const cpuinfo = await deps.readText("/proc/cpuinfo");
    const cpu = cpuinfo.ok ? parseCpuinfoModel(cpuinfo.value) : null;
    if (cpu !== null) return cpu;
    const fallback = deps.cpuModel();
    if (fallback.ok) return fallback.value;
    missing["/hardware/cpu"] = cpuinfo.ok ? "/proc/cpuinfo names no CPU model" : cpuinfo.reason;
    return null;
  }
  const model = deps.cpuModel();
  if (model.ok) return model.value;
  missing["/hardware/cpu"] = model.reason;
  return null;
}

/** The operating system: os-release on Linux, else the platform and kernel release; null with the reason. */
async function osOf(deps: ProbeDeps, kernelRelease: ReturnType<ProbeDeps["osRelease"]>, missing: MissingMap) {
  const kernel = kernelRelease.ok ? kernelRelease.value : null;
  if (deps.platform === "linux") {
    const release = await deps.readText("/etc/os-release");
    const fallback = release.ok ? null : await deps.readText("/usr/lib/os-release");
    const text = release.ok ? release.value : fallback?.ok ? fallback.value : null;
    const os = text === null ? null : parseOsRelease(text);
    if (!os) {
      missing["/software/os"] = text === null && !release.ok
        ? release.reason
        : "os-release names no NAME and VERSION_ID";
    }
    return os;
  }
  if (deps.platform === "win32" && kernel) return { name: "Windows", version: kernel };
  if (kernel) return { name: deps.platform, version: kernel };
  missing["/software/os"] = kernelRelease.ok ? "unknown operating system" : kernelRelease.reason;
  return null;
}

/** The GPUs CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES leave the engine (every GPU when neither is set). */
function selectedDevices(
  deps: ProbeDeps,
  gpus: Gpu[] | null,
  engineEnv: Readonly<Record<string, string>>,
): DeviceSelection {
  const read = (name: string): { value: string | null; refused: string | null } => {
    if (Object.hasOwn(engineEnv, name)) return { value: engineEnv[name]!, refused: null };
    const got = deps.env(name);
    if (got.ok) return { value: got.value, refused: null };
    return { value: null, refused: got.kind === "not_found" ? null : got.reason };
  };
  const cuda = read("CUDA_VISIBLE_DEVICES");
  const hip = read("HIP_VISIBLE_DEVICES");
  const base = { cuda_visible_devices: cuda.value, hip_visible_devices: hip.value };
  const refused = cuda.refused ?? hip.refused;
  if (refused !== null) return { ...base, selected_device_indices: null, reason: refused };
  const set = [["CUDA_VISIBLE_DEVICES", cuda.value], ["HIP_VISIBLE_DEVICES", hip.value]]
    .filter((entry): entry is [string, string] => entry[1] !== null);
  if (set.length === 0) {
    return {
      ...base,
      selected_device_indices: gpus === null ? null : gpus.map((gpu) => gpu.device_index),
      reason: gpus === null
        ? "neither CUDA_VISIBLE_DEVICES nor HIP_VISIBLE_DEVICES is set, and no GPU was found"
        : "neither CUDA_VISIBLE_DEVICES nor HIP_VISIBLE_DEVICES is set: the engine sees every GPU",
    };
  }
  const [name, value] = set[0]!;
  const indices = parseVisibleDevices(value);
  if (indices === null) {
    return {
      ...base,
      selected_device_indices: null,
      reason: `${name} is ${JSON.stringify(value)}, which names no device indices (UUIDs, MIG instances or none)`,
    };
  }
  return { ...base, selected_device_indices: indices, reason: `from ${name}` };
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

const LSBLK_COLUMNS = ["NAME,MODEL,TRAN,ROTA,TYPE,SUBSYSTEMS", "NAME,MODEL,TRAN,ROTA,TYPE"];

/**
 * Storage from lsblk's JSON (run permission only: Deno reads /sys only under --allow-all), else from sysfs
 * (a run that has that access); a reason names both when neither works.
 */
async function probeLinuxStorage(deps: ProbeDeps, missing: MissingMap): Promise<Storage[] | null> {
  let lsblkReason = "";
  for (const columns of LSBLK_COLUMNS) {
    const listed = await deps.runCommand("lsblk", ["-J", "-d", "-o", columns], { timeoutMs: 15_000 });
    if (!listed.ok) {
      lsblkReason = listed.reason;
      break;
    }
    if (listed.value.code !== 0) {
      // An older lsblk without SUBSYSTEMS says "unknown column": ask again without it.
      lsblkReason = `lsblk exited with code ${listed.value.code}: ${listed.value.stderr.trim().split("\n")[0] ?? ""}`;
      continue;
    }
    const devices = parseLsblk(listed.value.stdout);
    if (devices !== null) return storageFromLsblk(devices, missing);
    lsblkReason = "lsblk printed no blockdevices list";
    break;
  }
  const fromSysfs = await probeSysfsStorage(deps, missing);
  if (fromSysfs === null) missing["/hardware/storage"] = `${lsblkReason}; ${missing["/hardware/storage"]}`;
  return fromSysfs;
}

/** Disks lsblk listed, in its order; loop, RAM and optical devices left out. */
function storageFromLsblk(devices: readonly LsblkDevice[], missing: MissingMap): Storage[] {
  const storage: Storage[] = [];
  for (const device of devices) {
    if (SKIPPED_BLOCK_DEVICES.test(device.name) || (device.type !== null && device.type !== "disk")) continue;
    const position = storage.length;
    const subsystems = device.subsystems ?? "";
    const virtio = subsystems.includes("virtio") || /^vd[a-z]/.test(device.name);
    const bus = device.tran ?? (virtio ? "virtio" : device.name.startsWith("nvme") ? "nvme" : null);
    let kind: string | null = device.rota === true ? "hdd" : device.rota === false ? "ssd" : null;
    if (kind === null) missing[`/hardware/storage/${position}/kind`] = "lsblk reports no rotational flag";
    if (kind === "hdd" && virtio) {
      kind = null;
      missing[`/hardware/storage/${position}/kind`] = "virtual disk (virtio): the host's medium is unknown";
    }
    if (device.model === null) {
      missing[`/hardware/storage/${position}/model`] = virtio
        ? "lsblk reports no model (a virtual disk has none)"
        : "lsblk reports no model";
    }
    if (bus === null) missing[`/hardware/storage/${position}/bus`] = "lsblk reports no transport for this disk";
    storage.push({ kind, model: device.model, bus });
  }
  return storage;
}

async function probeSysfsStorage(deps: ProbeDeps, missing: MissingMap): Promise<Storage[] | null> {
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
