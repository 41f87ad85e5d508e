/**
 * Pure parsers of hardware tool output: nvidia-smi, rocm-smi, amd-smi, /proc files, os-release. Each returns
 * what it could read plus per-field reasons; none throws on odd input.
 */
import type { NameVersion } from "../contract/mod.ts";

/** One GPU as a vendor tool reports it, before it becomes a contract `Gpu`. */
export interface GpuReading {
  deviceIndex: number;
  name: string;
  memoryBytes: number | null;
  memoryKind: "dedicated" | "shared" | null;
  powerLimitW: number | null;
  /** Field name (memory_bytes, power_limit_w, ...) -> why it is null. */
  missing: Record<string, string>;
}

/** GPUs and the driver version from one nvidia-smi --query-gpu CSV (noheader, nounits). */
export interface NvidiaQuery {
  gpus: GpuReading[];
  driverVersion: string | null;
}

const MIB = 1024 * 1024;

function finiteNumber(text: string | undefined): number | null {
  if (text === undefined) return null;
  const trimmed = text.trim();
  if (!/^-?\d+(\.\d+)?$/.test(trimmed)) return null;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : null;
}

const nonNegative = (n: number | null) => (n !== null && n >= 0 ? n : null);

/** A tool's field as JSON text (control and format characters escaped), at most 40 characters of it. */
function quoted(text: string): string {
  const cut = text.length > 40 ? `${text.slice(0, 40)}...` : text;
  return JSON.stringify(cut).replace(
    /[\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * Parses `nvidia-smi --query-gpu=index,name,memory.total,power.limit,driver_version --format=csv,noheader,nounits`.
 * memory.total is MiB; power.limit is W or "[N/A]" / "[Not Supported]". Names may contain commas, so the fixed
 * fields are taken from both ends of the line.
 */
export function parseNvidiaQuery(csv: string): NvidiaQuery {
  const gpus: GpuReading[] = [];
  let driverVersion: string | null = null;
  for (const rawLine of csv.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === "") continue;
    const fields = line.split(",").map((f) => f.trim());
    if (fields.length < 5) continue;
    const index = finiteNumber(fields[0]);
    if (index === null || !Number.isInteger(index)) continue;
    const driver = fields[fields.length - 1] ?? "";
    const power = fields[fields.length - 2] ?? "";
    const memory = fields[fields.length - 3] ?? "";
    const name = fields.slice(1, fields.length - 3).join(", ");
    const missing: Record<string, string> = {};
    // A negative amount is no reading either; the tool's text is quoted escaped and cut (it may be anything).
    const memoryMiB = nonNegative(finiteNumber(memory));
    if (memoryMiB === null) missing.memory_bytes = `nvidia-smi reports memory.total as ${quoted(memory)}`;
    const powerW = nonNegative(finiteNumber(power));
    if (powerW === null) missing.power_limit_w = `nvidia-smi reports power.limit as ${quoted(power)}`;
    if (/^\d+(\.\d+)*$/.test(driver)) driverVersion ??= driver;
    gpus.push({
      deviceIndex: index,
      name,
      memoryBytes: memoryMiB === null ? null : Math.round(memoryMiB * MIB),
      memoryKind: "dedicated",
      powerLimitW: powerW,
      missing,
    });
  }
  return { gpus, driverVersion };
}

/** The CUDA version printed in plain `nvidia-smi`'s header (the newest CUDA the driver supports). */
export function parseCudaVersion(header: string): string | null {
  return /CUDA Version:\s*(\d+(?:\.\d+)*)/.exec(header)?.[1] ?? null;
}

/** GPUs and the driver version from `rocm-smi --showproductname --showmeminfo vram --showmaxpower --showdriverversion --json`. */
export function parseRocmSmiJson(text: string): { gpus: GpuReading[]; driverVersion: string | null } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { gpus: [], driverVersion: null };
  }
  if (typeof data !== "object" || data === null) return { gpus: [], driverVersion: null };
  const gpus: GpuReading[] = [];
  let driverVersion: string | null = null;
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (typeof value !== "object" || value === null) continue;
    const fields = value as Record<string, unknown>;
    if (key === "system") {
      const driver = fields["Driver version"];
      if (typeof driver === "string" && driver.trim() !== "") driverVersion = driver.trim();
      continue;
    }
    const card = /^card(\d+)$/.exec(key);
    if (!card) continue;
    const name = [fields["Card Series"], fields["Device Name"], fields["Card Model"]]
      .find((v): v is string => typeof v === "string" && v.trim() !== "")?.trim();
    const memory = finiteNumber(String(fields["VRAM Total Memory (B)"] ?? ""));
    const power = finiteNumber(String(fields["Max Graphics Package Power (W)"] ?? ""));
    const missing: Record<string, string> = {};
    if (memory === null) missing.memory_bytes = "rocm-smi reports no VRAM total";
    if (power === null) missing.power_limit_w = "rocm-smi reports no maximum package power";
    gpus.push({
      deviceIndex: Number(card[1]),
      name: name ?? "AMD GPU (rocm-smi reports no product name)",
      memoryBytes: memory,
      memoryKind: "dedicated",
      powerLimitW: power,
      missing,
    });
  }
  gpus.sort((a, b) => a.deviceIndex - b.deviceIndex);
  return { gpus, driverVersion };
}

function jsonRecords(text: string): Record<string, unknown>[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return [];
  }
  const found: Record<string, unknown>[] = [];
  const visit = (node: unknown, depth: number) => {
    if (depth > 4 || typeof node !== "object" || node === null) return;
    if (Array.isArray(node)) return node.forEach((item) => visit(item, depth + 1));
    const record = node as Record<string, unknown>;
    if (typeof record.gpu === "number") found.push(record);
    else Object.values(record).forEach((item) => visit(item, depth + 1));
  };
  visit(data, 0);
  return found;
}

/** gpu index -> PCI address (BDF) from `amd-smi list --json`. */
export function parseAmdSmiList(text: string): Map<number, string> {
  const bdfs = new Map<number, string>();
  for (const record of jsonRecords(text)) {
    if (typeof record.bdf === "string" && /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/i.test(record.bdf)) {
      bdfs.set(record.gpu as number, record.bdf.toLowerCase());
    }
  }
  return bdfs;
}

/** gpu index -> market name from `amd-smi static --asic --json`. */
export function parseAmdSmiAsic(text: string): Map<number, string> {
  const names = new Map<number, string>();
  for (const record of jsonRecords(text)) {
    const asic = record.asic as Record<string, unknown> | undefined;
    const name = asic?.market_name;
    if (typeof name === "string" && name.trim() !== "" && name !== "N/A") names.set(record.gpu as number, name.trim());
  }
  return names;
}

/** The version in a ROCm install's version file (`/opt/rocm/.info/version`: "7.0.1-38" -> "7.0.1"). */
export function parseRocmVersionFile(text: string): string | null {
  return /^\s*(\d+\.\d+(?:\.\d+)?)/.exec(text)?.[1] ?? null;
}

/** The CPU model from /proc/cpuinfo (x86 "model name"; some ARM kernels "Hardware" or "Processor"). */
export function parseCpuinfoModel(text: string): string | null {
  for (const key of ["model name", "Hardware", "Processor", "cpu model"]) {
    const match = new RegExp(`^${key}\\s*:\\s*(.+)$`, "m").exec(text);
    const value = match?.[1]?.trim();
    if (value) return value.replace(/\s+/g, " ");
  }
  return null;
}

/** MemTotal from /proc/meminfo, in bytes (the file says kB and means KiB). */
export function parseMeminfoTotalBytes(text: string): number | null {
  const kib = /^MemTotal:\s*(\d+)\s*kB\s*$/m.exec(text)?.[1];
  return kib === undefined ? null : Number(kib) * 1024;
}

/** Name and version from /etc/os-release (VERSION_ID, else VERSION, else BUILD_ID). */
export function parseOsRelease(text: string): NameVersion | null {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (!match?.[1]) continue;
    let value = (match[2] ?? "").trim();
    if (/^(["']).*\1$/.test(value)) value = value.slice(1, -1);
    fields.set(match[1], value.replace(/\\(["'\\$`])/g, "$1"));
  }
  const name = fields.get("NAME") || fields.get("ID");
  const version = fields.get("VERSION_ID") || fields.get("VERSION") || fields.get("BUILD_ID");
  if (!name || !version) return null;
  return { name, version };
}

/** One block device as `lsblk -J -d -o NAME,MODEL,TRAN,ROTA,TYPE,SUBSYSTEMS` lists it. */
export interface LsblkDevice {
  name: string;
  model: string | null;
  tran: string | null;
  /** The rotational flag: true, false, or null when not reported (older lsblk prints "0"/"1"). */
  rota: boolean | null;
  type: string | null;
  subsystems: string | null;
}

function textOrNull(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  return trimmed === "" ? null : trimmed;
}

function flagOrNull(value: unknown): boolean | null {
  if (typeof value === "boolean") return value;
  if (value === "1" || value === 1) return true;
  if (value === "0" || value === 0) return false;
  return null;
}

/** The devices of lsblk's JSON output (`blockdevices`); null when the text is not that. */
export function parseLsblk(text: string): LsblkDevice[] | null {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  const list = typeof data === "object" && data !== null ? (data as Record<string, unknown>).blockdevices : undefined;
  if (!Array.isArray(list)) return null;
  const devices: LsblkDevice[] = [];
  for (const item of list) {
    if (typeof item !== "object" || item === null) continue;
    const d = item as Record<string, unknown>;
    const name = textOrNull(d.name);
    if (name === null) continue;
    devices.push({
      name,
      model: textOrNull(d.model),
      tran: textOrNull(d.tran)?.toLowerCase() ?? null,
      rota: flagOrNull(d.rota),
      type: textOrNull(d.type),
      subsystems: textOrNull(d.subsystems),
    });
  }
  return devices;
}

/** One GPU as `amd-smi static --asic --vram --limit --driver --bus --json` describes it. */
export interface AmdSmiGpu {
  index: number;
  bdf: string | null;
  name: string | null;
  memoryBytes: number | null;
  powerLimitW: number | null;
  /** The amdgpu driver version; null when amd-smi has none (or only the kernel's build string). */
  driverVersion: string | null;
  /** Field (memory_bytes, power_limit_w, driver) -> why it is null. */
  missing: Record<string, string>;
}

/** A `{value, unit}` pair (or a bare number) in the base unit the factors give; null for "N/A" and the like. */
function measured(value: unknown, factors: Readonly<Record<string, number>>): number | null {
  const raw = typeof value === "object" && value !== null ? value as Record<string, unknown> : { value, unit: "" };
  const amount = typeof raw.value === "number" ? raw.value : typeof raw.value === "string" ? Number(raw.value) : NaN;
  const factor = factors[typeof raw.unit === "string" ? raw.unit : ""];
  if (!Number.isFinite(amount) || amount < 0 || factor === undefined) return null;
  return amount * factor;
}

const MEMORY_UNITS = { MB: 1024 * 1024, MiB: 1024 * 1024, GB: 1024 ** 3, GiB: 1024 ** 3, KB: 1024, B: 1 } as const;
const POWER_UNITS = { W: 1, mW: 1e-3, uW: 1e-6 } as const;

/**
 * GPUs of amd-smi's static JSON (ROCm 6 prints a list, ROCm 7 wraps it in `gpu_data`). Memory is `vram.size` (amd-smi's
 * MB are MiB); the power limit is the current cap (`limit.socket_power`, per sensor `limit.ppt0.socket_power_limit`
 * in ROCm 7.1), never the largest cap one may set; the driver version is null where amdgpu is built into the
 * kernel (amd-smi then prints the kernel's build string instead of a module version).
 */
export function parseAmdSmiStatic(text: string): AmdSmiGpu[] {
  const out: AmdSmiGpu[] = [];
  for (const record of jsonRecords(text)) {
    const asic = record.asic as Record<string, unknown> | undefined;
    const vram = record.vram as Record<string, unknown> | undefined;
    const limit = record.limit as Record<string, unknown> | undefined;
    const driver = record.driver as Record<string, unknown> | undefined;
    const bus = record.bus as Record<string, unknown> | undefined;
    const missing: Record<string, string> = {};
    const marketName = textOrNull(asic?.market_name);
    const name = marketName === null || marketName === "N/A" ? null : marketName;
    const memoryBytes = measured(vram?.size, MEMORY_UNITS);
    if (memoryBytes === null) {
      missing.memory_bytes = `amd-smi reports vram.size as ${JSON.stringify(vram?.size ?? null)}`;
    }
    const ppt0 = limit?.ppt0 as Record<string, unknown> | undefined;
    const cap = limit?.socket_power ?? ppt0?.socket_power_limit;
    const powerLimitW = measured(cap, POWER_UNITS);
    if (powerLimitW === null) {
      missing.power_limit_w = cap === undefined
        ? "amd-smi reports no current power cap (limit.socket_power)"
        : `amd-smi reports the power cap as ${JSON.stringify(cap)}`;
    }
    const version = textOrNull(driver?.version);
    let driverVersion: string | null = null;
    if (version === null || version === "N/A") missing.driver = "amd-smi reports no amdgpu driver version";
    else if (/^linux/i.test(version) || /\bSMP\b|PREEMPT/.test(version)) {
      missing.driver = "amdgpu has no version to read: it is built into the kernel (amd-smi prints the kernel's build)";
    } else driverVersion = version;
    const bdf = typeof bus?.bdf === "string" ? bus.bdf.toLowerCase() : null;
    out.push({ index: record.gpu as number, bdf, name, memoryBytes, powerLimitW, driverVersion, missing });
  }
  return out.sort((a, b) => a.index - b.index);
}

/**
 * The device indices a *_VISIBLE_DEVICES value selects ("0,2" -> [0, 2]); null when it names devices otherwise
 * (UUIDs, MIG instances) or is empty, because those are not indices into the GPU list.
 */
export function parseVisibleDevices(value: string): number[] | null {
  const parts = value.split(",").map((part) => part.trim());
  if (parts.length === 0 || parts.some((part) => !/^\d+$/.test(part))) return null;
  return parts.map(Number);
}
