/**
 * GPU discovery by vendor tool: NVIDIA (nvidia-smi), AMD (rocm-smi, or on ROCm 7+ amd-smi's static JSON, which
 * needs only the run permission; sysfs is a fallback for an older amd-smi), Apple silicon.
 */
import type { NameVersion } from "../contract/mod.ts";
import type { Outcome, ProbeDeps } from "./_deps.ts";
import {
  type AmdSmiGpu,
  type GpuReading,
  parseAmdSmiAsic,
  parseAmdSmiList,
  parseAmdSmiStatic,
  parseCudaVersion,
  parseNvidiaQuery,
  parseRocmSmiJson,
  parseRocmVersionFile,
} from "./_hardware_parsers.ts";

/** What one vendor probe found; `reason` says why it found nothing. */
export interface VendorGpus {
  gpus: GpuReading[];
  drivers: NameVersion[];
  runtime: NameVersion[];
  /** Names ("gpu-driver", "rocm") -> why that entry is absent although GPUs were found. */
  notes: Record<string, string>;
  reason: string | null;
}

const NVIDIA_QUERY = [
  "--query-gpu=index,name,memory.total,power.limit,driver_version",
  "--format=csv,noheader,nounits",
];

function none(reason: string): VendorGpus {
  return { gpus: [], drivers: [], runtime: [], notes: {}, reason };
}

/** Text output of a command that exited 0, or the reason there is none. */
async function commandText(deps: ProbeDeps, command: string, args: readonly string[]): Promise<Outcome<string>> {
  const result = await deps.runCommand(command, args, { timeoutMs: 15_000 });
  if (!result.ok) return result;
  if (result.value.code !== 0) {
    const detail = (result.value.stderr || result.value.stdout).trim().split(/\r?\n/)[0]?.slice(0, 160) ?? "";
    return {
      ok: false,
      kind: "failed",
      reason: `${command} exited with code ${result.value.code}${detail ? `: ${detail}` : ""}`,
    };
  }
  return { ok: true, value: result.value.stdout };
}

/** NVIDIA GPUs, driver version and CUDA version from nvidia-smi. */
export async function probeNvidia(deps: ProbeDeps): Promise<VendorGpus> {
  const query = await commandText(deps, "nvidia-smi", NVIDIA_QUERY);
  if (!query.ok) return none(query.reason);
  const parsed = parseNvidiaQuery(query.value);
  if (parsed.gpus.length === 0) return none("nvidia-smi listed no GPU");
  const result: VendorGpus = { gpus: parsed.gpus, drivers: [], runtime: [], notes: {}, reason: null };
  if (parsed.driverVersion) result.drivers.push({ name: "nvidia", version: parsed.driverVersion });
  else result.notes.nvidia = "nvidia-smi printed no driver version";
  const header = await commandText(deps, "nvidia-smi", []);
  const cuda = header.ok ? parseCudaVersion(header.value) : null;
  if (cuda) result.runtime.push({ name: "cuda", version: cuda });
  else result.notes.cuda = header.ok ? "nvidia-smi printed no CUDA version" : header.reason;
  return result;
}

/** AMD GPUs: rocm-smi where installed, else amd-smi (ROCm 7+) with memory from amdgpu sysfs. */
export async function probeAmd(deps: ProbeDeps): Promise<VendorGpus> {
  const rocm = await commandText(deps, "rocm-smi", [
    "--showproductname",
    "--showmeminfo",
    "vram",
    "--showmaxpower",
    "--showdriverversion",
    "--json",
  ]);
  let found: VendorGpus;
  if (rocm.ok) {
    const parsed = parseRocmSmiJson(rocm.value);
    if (parsed.gpus.length === 0) return none("rocm-smi listed no GPU");
    found = { gpus: parsed.gpus, drivers: [], runtime: [], notes: {}, reason: null };
    if (parsed.driverVersion) found.drivers.push({ name: "amdgpu", version: parsed.driverVersion });
  } else if (rocm.kind !== "not_found") {
    return none(rocm.reason);
  } else {
    found = await probeAmdSmi(deps);
    if (found.gpus.length === 0) {
      return none(
        found.reason?.endsWith("not found")
          ? "not applicable: no AMD tool (rocm-smi and amd-smi not found)"
          : found.reason ?? "no AMD GPU",
      );
    }
  }
  if (found.drivers.length === 0 && found.notes["gpu-driver"] === undefined) {
    const module = await deps.readText("/sys/module/amdgpu/version");
    const version = module.ok ? module.value.trim() : "";
    if (version) found.drivers.push({ name: "amdgpu", version });
    else found.notes["gpu-driver"] = "amdgpu has no version to read (built into the kernel, not a DKMS module)";
  }
  const rocmVersion = await readRocmVersion(deps);
  if (rocmVersion.ok) found.runtime.push({ name: "rocm", version: rocmVersion.value });
  else found.notes.rocm = rocmVersion.reason;
  return found;
}

async function readRocmVersion(deps: ProbeDeps): Promise<Outcome<string>> {
  const roots = [] as string[];
  const rocmPath = deps.env("ROCM_PATH");
  if (rocmPath.ok) roots.push(rocmPath.value);
  roots.push("/opt/rocm");
  let last = "";
  for (const root of roots) {
    const text = await deps.readText(`${root}/.info/version`);
    const version = text.ok ? parseRocmVersionFile(text.value) : null;
    if (version) return { ok: true, value: version };
    last = text.ok ? `the ROCm version file holds no version` : text.reason;
  }
  return { ok: false, kind: "not_found", reason: `no ROCm version file (${last})` };
}

/** What one `amd-smi static` call tells: name, memory, power cap and driver (run permission only; no sysfs). */
const AMD_SMI_STATIC = ["static", "--asic", "--vram", "--limit", "--driver", "--bus", "--json"];

async function probeAmdSmi(deps: ProbeDeps): Promise<VendorGpus> {
  const full = await commandText(deps, "amd-smi", AMD_SMI_STATIC);
  if (!full.ok && full.kind === "not_found") return none(full.reason);
  const parsed = full.ok ? parseAmdSmiStatic(full.value) : [];
  if (parsed.length > 0) return amdSmiGpus(parsed);
  // An older amd-smi without some of these flags: names from --asic, memory and power from amdgpu sysfs.
  return await probeAmdSmiSysfs(deps);
}

function amdSmiGpus(parsed: readonly AmdSmiGpu[]): VendorGpus {
  const gpus: GpuReading[] = parsed.map((gpu) => {
    const { driver: _driver, ...missing } = gpu.missing;
    return {
      deviceIndex: gpu.index,
      name: gpu.name ??
        `AMD GPU ${gpu.index}${gpu.bdf === null ? "" : ` at ${gpu.bdf}`} (amd-smi reports no market name)`,
      memoryBytes: gpu.memoryBytes,
      memoryKind: "dedicated",
      powerLimitW: gpu.powerLimitW,
      missing,
    };
  });
  const version = parsed.find((gpu) => gpu.driverVersion !== null)?.driverVersion ?? null;
  const found: VendorGpus = { gpus, drivers: [], runtime: [], notes: {}, reason: null };
  if (version !== null) found.drivers.push({ name: "amdgpu", version });
  else found.notes["gpu-driver"] = parsed[0]?.missing.driver ?? "amd-smi reports no amdgpu driver version";
  return found;
}

async function probeAmdSmiSysfs(deps: ProbeDeps): Promise<VendorGpus> {
  const list = await commandText(deps, "amd-smi", ["list", "--json"]);
  if (!list.ok) return none(list.reason);
  const bdfs = parseAmdSmiList(list.value);
  if (bdfs.size === 0) return none("amd-smi listed no GPU");
  const asic = await commandText(deps, "amd-smi", ["static", "--asic", "--json"]);
  const names = asic.ok ? parseAmdSmiAsic(asic.value) : new Map<number, string>();
  const gpus: GpuReading[] = [];
  for (const [index, bdf] of [...bdfs].sort((a, b) => a[0] - b[0])) {
    const missing: Record<string, string> = {};
    const device = `/sys/bus/pci/devices/${bdf}`;
    const vram = await deps.readText(`${device}/mem_info_vram_total`);
    const memoryBytes = vram.ok && /^\s*\d+\s*$/.test(vram.value) ? Number(vram.value.trim()) : null;
    if (memoryBytes === null) {
      missing.memory_bytes = vram.ok ? "amdgpu sysfs mem_info_vram_total is not a number" : vram.reason;
    }
    const power = await readHwmonPowerCapW(deps, device);
    if (!power.ok) missing.power_limit_w = power.reason;
    gpus.push({
      deviceIndex: index,
      name: names.get(index) ?? `AMD GPU at ${bdf} (amd-smi reports no market name)`,
      memoryBytes,
      memoryKind: "dedicated",
      powerLimitW: power.ok ? power.value : null,
      missing,
    });
  }
  return { gpus, drivers: [], runtime: [], notes: {}, reason: null };
}

/** hwmon power1_cap (microwatts) of a PCI device, in watts. */
async function readHwmonPowerCapW(deps: ProbeDeps, device: string): Promise<Outcome<number>> {
  const dirs = await deps.readDir(`${device}/hwmon`);
  if (!dirs.ok) return { ...dirs, reason: `no hwmon power cap: ${dirs.reason}` };
  for (const name of dirs.value) {
    const cap = await deps.readText(`${device}/hwmon/${name}/power1_cap`);
    if (cap.ok && /^\s*\d+\s*$/.test(cap.value)) return { ok: true, value: Number(cap.value.trim()) / 1e6 };
  }
  return { ok: false, kind: "not_found", reason: "amdgpu hwmon reports no power1_cap" };
}

/** Apple silicon: one shared-memory GPU named after the chip; macOS version as the Metal runtime. */
export async function probeApple(
  deps: ProbeDeps,
): Promise<VendorGpus & { chip: string | null; memoryBytes: number | null; macosVersion: string | null }> {
  const chip = await commandText(deps, "sysctl", ["-n", "machdep.cpu.brand_string"]);
  const memory = await commandText(deps, "sysctl", ["-n", "hw.memsize"]);
  const version = await commandText(deps, "sw_vers", ["-productVersion"]);
  const chipName = chip.ok && chip.value.trim() !== "" ? chip.value.trim() : null;
  const memoryBytes = memory.ok && /^\s*\d+\s*$/.test(memory.value) ? Number(memory.value.trim()) : null;
  const macosVersion = version.ok && version.value.trim() !== "" ? version.value.trim() : null;
  const base = { chip: chipName, memoryBytes, macosVersion };
  if (!chipName) return { ...none(chip.ok ? "sysctl printed no chip name" : chip.reason), ...base };
  const missing: Record<string, string> = {
    power_limit_w: "Apple silicon does not report a GPU power limit",
  };
  if (memoryBytes === null) missing.memory_bytes = memory.ok ? "sysctl hw.memsize is not a number" : memory.reason;
  const result: VendorGpus = {
    gpus: [{ deviceIndex: 0, name: chipName, memoryBytes, memoryKind: "shared", powerLimitW: null, missing }],
    drivers: [],
    runtime: macosVersion ? [{ name: "metal", version: macosVersion }] : [],
    notes: macosVersion ? {} : { metal: version.ok ? "sw_vers printed no version" : version.reason },
    reason: null,
  };
  return { ...result, ...base };
}
