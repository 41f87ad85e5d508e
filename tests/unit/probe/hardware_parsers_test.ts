import assert from "node:assert/strict";
import {
  parseAmdSmiAsic,
  parseAmdSmiList,
  parseAmdSmiStatic,
  parseCpuinfoModel,
  parseCudaVersion,
  parseLsblk,
  parseMeminfoTotalBytes,
  parseNvidiaQuery,
  parseOsRelease,
  parseRocmSmiJson,
  parseRocmVersionFile,
  parseVisibleDevices,
} from "../../../probe/_hardware_parsers.ts";
import { captured } from "./_fake.ts";

Deno.test("nvidia-smi CSV of two GPUs gives indices, names, MiB as bytes, watts and one driver version", () => {
  const parsed = parseNvidiaQuery(captured("nvidia-smi-query-2gpu.csv"));
  assert.equal(parsed.driverVersion, "570.133.07");
  assert.deepEqual(parsed.gpus.map((g) => [g.deviceIndex, g.name, g.memoryBytes, g.powerLimitW, g.memoryKind]), [
    [0, "NVIDIA RTX A4000", 16376 * 1048576, 140, "dedicated"],
    [1, "NVIDIA RTX A4000", 16376 * 1048576, 140, "dedicated"],
  ]);
  assert.deepEqual(parsed.gpus[0]?.missing, {});
});

Deno.test("nvidia-smi power.limit [N/A] on a laptop GPU is null with the tool's own words as the reason", () => {
  const parsed = parseNvidiaQuery(captured("nvidia-smi-query-laptop-na.csv"));
  assert.equal(parsed.gpus[0]?.name, "NVIDIA GeForce RTX 3060 Laptop GPU");
  assert.equal(parsed.gpus[0]?.powerLimitW, null);
  assert.match(parsed.gpus[0]?.missing.power_limit_w ?? "", /\[N\/A\]/);
  assert.equal(parsed.gpus[0]?.memoryBytes, 6144 * 1048576);
});

Deno.test("a negative or escape-laden nvidia-smi amount is no reading, and its text is quoted escaped", () => {
  const parsed = parseNvidiaQuery("0, Board, -8192, \x1b[31m300\u202e, 535.54.03\n");
  assert.equal(parsed.gpus[0]?.memoryBytes, null);
  assert.equal(parsed.gpus[0]?.missing.memory_bytes, 'nvidia-smi reports memory.total as "-8192"');
  assert.equal(parsed.gpus[0]?.powerLimitW, null);
  assert.equal(parsed.gpus[0]?.missing.power_limit_w, 'nvidia-smi reports power.limit as "\\u001b[31m300\\u202e"');
});

Deno.test("nvidia-smi GPU names containing commas keep the fixed fields from the line's end", () => {
  const parsed = parseNvidiaQuery("0, Some Board, Rev 2, 8192, 75.00, 535.54.03\r\n");
  assert.equal(parsed.gpus[0]?.name, "Some Board, Rev 2");
  assert.equal(parsed.gpus[0]?.powerLimitW, 75);
  assert.equal(parsed.driverVersion, "535.54.03");
});

Deno.test("nvidia-smi output that is not the CSV (an error message) gives no GPU", () => {
  const parsed = parseNvidiaQuery(
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n",
  );
  assert.deepEqual(parsed, { gpus: [], driverVersion: null });
});

Deno.test("the CUDA version comes from plain nvidia-smi's header; absent -> null", () => {
  assert.equal(parseCudaVersion(captured("nvidia-smi-header-2gpu.txt")), "12.8");
  assert.equal(parseCudaVersion("| NVIDIA-SMI 580.65.06   Driver Version: 580.65.06   CUDA Version: 13.0  |"), "13.0");
  assert.equal(parseCudaVersion("No devices were found"), null);
});

Deno.test("rocm-smi JSON gives the card series, VRAM bytes, max package power and the driver version", () => {
  const parsed = parseRocmSmiJson(captured("rocm-smi-7900xtx.json"));
  assert.equal(parsed.driverVersion, "6.10.5");
  assert.equal(parsed.gpus.length, 1);
  assert.equal(parsed.gpus[0]?.name, "Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]");
  assert.equal(parsed.gpus[0]?.memoryBytes, 25753026560);
  assert.equal(parsed.gpus[0]?.powerLimitW, 327);
});

Deno.test("rocm-smi output that is not JSON gives no GPU instead of throwing", () => {
  assert.deepEqual(parseRocmSmiJson("ERROR: GPU[0] : Unable to read"), { gpus: [], driverVersion: null });
});

Deno.test("amd-smi list and static --asic give the PCI address and market name per GPU index", () => {
  assert.deepEqual([...parseAmdSmiList(captured("amd-smi-list.json"))], [[0, "0000:c3:00.0"]]);
  assert.deepEqual([...parseAmdSmiAsic(captured("amd-smi-static-asic.json"))], [[0, "AMD Radeon 8060S"]]);
});

Deno.test("amd-smi JSON wrapped in an object (newer releases) is still read", () => {
  const wrapped = JSON.stringify({ gpu_data: [{ gpu: 1, bdf: "0000:03:00.0" }] });
  assert.deepEqual([...parseAmdSmiList(wrapped)], [[1, "0000:03:00.0"]]);
  assert.equal(parseAmdSmiAsic(JSON.stringify([{ gpu: 0, asic: { market_name: "N/A" } }])).size, 0);
});

Deno.test("the ROCm version file '7.0.1-38' reads as 7.0.1; junk is null", () => {
  assert.equal(parseRocmVersionFile("7.0.1-38\n"), "7.0.1");
  assert.equal(parseRocmVersionFile("unknown"), null);
});

Deno.test("/proc/cpuinfo gives the x86 model name; ARM cpuinfo without a model line gives null", () => {
  assert.equal(parseCpuinfoModel(captured("proc-cpuinfo-x86.txt")), "AMD Ryzen 9 5950X 16-Core Processor");
  assert.equal(parseCpuinfoModel(captured("proc-cpuinfo-arm64.txt")), null);
  assert.equal(parseCpuinfoModel("Hardware\t: BCM2835\n"), "BCM2835");
});

Deno.test("/proc/meminfo MemTotal in kB is converted to bytes (x1024)", () => {
  assert.equal(parseMeminfoTotalBytes(captured("proc-meminfo.txt")), 65768084 * 1024);
  assert.equal(parseMeminfoTotalBytes("MemFree: 1 kB\n"), null);
});

Deno.test("os-release gives NAME and VERSION_ID, falling back to BUILD_ID on rolling releases", () => {
  assert.deepEqual(parseOsRelease(captured("os-release-ubuntu.txt")), { name: "Ubuntu", version: "24.04" });
  assert.deepEqual(parseOsRelease(captured("os-release-arch.txt")), { name: "Arch Linux", version: "rolling" });
  assert.equal(parseOsRelease("ID=weird\n"), null);
});

Deno.test("lsblk JSON: disks with model, transport and rotational flag, as util-linux 2.38 prints them", () => {
  const devices = parseLsblk(JSON.stringify({
    blockdevices: [
      { name: "zram0", model: null, tran: null, rota: false, type: "disk", subsystems: "block" },
      { name: "vda", model: null, tran: null, rota: true, type: "disk", subsystems: "block:virtio:pci" },
      { name: "nvme0n1", model: "Samsung SSD 980 PRO 2TB   ", tran: "nvme", rota: false, type: "disk" },
    ],
  }));
  assert.deepEqual(devices, [
    { name: "zram0", model: null, tran: null, rota: false, type: "disk", subsystems: "block" },
    { name: "vda", model: null, tran: null, rota: true, type: "disk", subsystems: "block:virtio:pci" },
    { name: "nvme0n1", model: "Samsung SSD 980 PRO 2TB", tran: "nvme", rota: false, type: "disk", subsystems: null },
  ]);
  // Older lsblk prints the flag as "0" / "1".
  assert.equal(parseLsblk('{"blockdevices":[{"name":"sda","rota":"1"}]}')?.[0]?.rota, true);
  assert.equal(parseLsblk("not json"), null);
});

Deno.test("amd-smi static JSON (ROCm 6 list): name, VRAM in MiB, the current power cap, the driver version", () => {
  assert.deepEqual(parseAmdSmiStatic(captured("amd-smi-static-full.json")), [{
    index: 0,
    bdf: "0000:03:00.0",
    name: "AMD Radeon RX 7900 XTX",
    memoryBytes: 24560 * 1024 * 1024,
    powerLimitW: 327,
    driverVersion: "6.10.5",
    missing: {},
  }]);
});

Deno.test("amd-smi static JSON (ROCm 7 gpu_data): the ppt0 cap, no driver version for a built-in amdgpu, N/A values", () => {
  const [apu, other] = parseAmdSmiStatic(captured("amd-smi-static-rocm7.json"));
  assert.equal(apu!.name, "AMD Radeon 8060S");
  assert.equal(apu!.bdf, "0000:c3:00.0");
  assert.equal(apu!.powerLimitW, 120);
  assert.equal(apu!.memoryBytes, 512 * 1024 * 1024);
  assert.equal(apu!.driverVersion, null);
  assert.match(apu!.missing.driver ?? "", /built into the kernel/);
  assert.equal(other!.name, null);
  assert.equal(other!.memoryBytes, null);
  assert.equal(other!.powerLimitW, null);
  assert.deepEqual(Object.keys(other!.missing).sort(), ["driver", "memory_bytes", "power_limit_w"]);
});

Deno.test("visible-device lists: indices are read, UUIDs and empty values are not indices", () => {
  assert.deepEqual(parseVisibleDevices("0,2"), [0, 2]);
  assert.deepEqual(parseVisibleDevices(" 1 "), [1]);
  assert.equal(parseVisibleDevices("GPU-8f2c1d3e-aaaa"), null);
  assert.equal(parseVisibleDevices(""), null);
  assert.equal(parseVisibleDevices("-1"), null);
});
