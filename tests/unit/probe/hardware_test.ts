import assert from "node:assert/strict";
import { probeHardware } from "../../../probe/hardware.ts";
import { captured, fakeDeps, type FakeMachine, NVIDIA_QUERY, ROCM_QUERY } from "./_fake.ts";

const LINUX_BASICS: FakeMachine = {
  osRelease: "6.8.0-49-generic",
  files: {
    "/proc/cpuinfo": captured("proc-cpuinfo-x86.txt"),
    "/proc/meminfo": captured("proc-meminfo.txt"),
    "/etc/os-release": captured("os-release-ubuntu.txt"),
    "/sys/block/nvme0n1/queue/rotational": "0\n",
    "/sys/block/nvme0n1/device/model": "Samsung SSD 980 PRO 2TB                 \n",
    "/sys/block/sda/queue/rotational": "1\n",
    "/sys/block/sda/device/model": "ST4000DM004-2CV1\n",
    "/sys/block/sdb/queue/rotational": "0\n",
  },
  dirs: { "/sys/block": ["loop0", "nvme0n1", "sda", "sdb", "zram0"] },
  links: {
    "/sys/block/nvme0n1": "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/nvme/nvme0/nvme0n1",
    "/sys/block/sda": "/sys/devices/pci0000:00/0000:00:17.0/ata3/host2/target2:0:0/2:0:0:0/block/sda",
    "/sys/block/sdb": "/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0/block/sdb",
  },
};

Deno.test("a Linux box with two NVIDIA GPUs: GPUs, nvidia driver, CUDA runtime, CPU, RAM, storage and OS", async () => {
  const deps = fakeDeps({
    ...LINUX_BASICS,
    commands: {
      [NVIDIA_QUERY]: captured("nvidia-smi-query-2gpu.csv"),
      "nvidia-smi": captured("nvidia-smi-header-2gpu.txt"),
    },
  });
  const facts = await probeHardware(deps, { backgroundWorkloads: ["desktop session"] });
  assert.equal(facts.hardware.gpus?.length, 2);
  assert.deepEqual(facts.hardware.gpus?.[1], {
    device_index: 1,
    name: "NVIDIA RTX A4000",
    memory_bytes: 16376 * 1048576,
    memory_kind: "dedicated",
    power_limit_w: 140,
  });
  assert.deepEqual(facts.drivers, [{ name: "nvidia", version: "570.133.07" }]);
  assert.deepEqual(facts.runtime, [{ name: "cuda", version: "12.8" }]);
  assert.equal(facts.hardware.cpu, "AMD Ryzen 9 5950X 16-Core Processor");
  assert.equal(facts.hardware.ram_bytes, 65768084 * 1024);
  assert.deepEqual(facts.hardware.storage, [
    { kind: "ssd", model: "Samsung SSD 980 PRO 2TB", bus: "nvme" },
    { kind: "hdd", model: "ST4000DM004-2CV1", bus: "sata" },
    { kind: "ssd", model: null, bus: "usb" },
  ]);
  assert.deepEqual(facts.os, { name: "Ubuntu", version: "24.04" });
  assert.equal(facts.kernel, "6.8.0-49-generic");
  assert.deepEqual(facts.hardware.background_workloads, ["desktop session"]);
  assert.deepEqual(Object.keys(facts.missing), ["/hardware/storage/2/model"]);
});

Deno.test("a laptop GPU without a power limit gets a null power with a pointer to that GPU's field", async () => {
  const deps = fakeDeps({
    ...LINUX_BASICS,
    commands: { [NVIDIA_QUERY]: captured("nvidia-smi-query-laptop-na.csv"), "nvidia-smi": "CUDA Version: 12.4" },
  });
  const facts = await probeHardware(deps);
  assert.equal(facts.hardware.gpus?.[0]?.power_limit_w, null);
  assert.match(facts.missing["/hardware/gpus/0/power_limit_w"] ?? "", /power\.limit/);
});

Deno.test("no GPU tool installed: gpus, drivers and runtime are null with 'not found' reasons; nothing throws", async () => {
  const facts = await probeHardware(fakeDeps(LINUX_BASICS));
  assert.equal(facts.hardware.gpus, null);
  assert.match(facts.missing["/hardware/gpus"] ?? "", /nvidia-smi not found/);
  assert.match(facts.missing["/hardware/gpus"] ?? "", /not applicable: no AMD tool/);
  assert.equal(facts.drivers, null);
  assert.ok(facts.missing["/software/drivers"]);
  assert.ok(facts.missing["/software/runtime"]);
});

Deno.test("a refused run permission for nvidia-smi names the flag to add", async () => {
  const deps = fakeDeps({ ...LINUX_BASICS, commands: { [NVIDIA_QUERY]: { refuse: "permission" } } });
  const facts = await probeHardware(deps);
  assert.match(
    facts.missing["/hardware/gpus"] ?? "",
    /permission to run nvidia-smi refused \(add --allow-run=nvidia-smi\)/,
  );
});

Deno.test("an AMD card through rocm-smi: name, VRAM, power, amdgpu driver and the ROCm version file", async () => {
  const deps = fakeDeps({
    ...LINUX_BASICS,
    files: { ...LINUX_BASICS.files, "/opt/rocm/.info/version": "6.4.1-120\n" },
    commands: { [ROCM_QUERY]: captured("rocm-smi-7900xtx.json") },
  });
  const facts = await probeHardware(deps);
  assert.equal(facts.hardware.gpus?.[0]?.memory_bytes, 25753026560);
  assert.deepEqual(facts.drivers, [{ name: "amdgpu", version: "6.10.5" }]);
  assert.deepEqual(facts.runtime, [{ name: "rocm", version: "6.4.1" }]);
});

Deno.test("ROCm 7 with amd-smi only: market name, sysfs VRAM of the listed PCI address, hwmon power cap", async () => {
  const device = "/sys/bus/pci/devices/0000:c3:00.0";
  const deps = fakeDeps({
    ...LINUX_BASICS,
    files: {
      ...LINUX_BASICS.files,
      [`${device}/mem_info_vram_total`]: "103079215104\n",
      [`${device}/hwmon/hwmon4/power1_cap`]: "120000000\n",
      "/opt/rocm/.info/version": "7.0.1-38\n",
    },
    dirs: { ...LINUX_BASICS.dirs, [`${device}/hwmon`]: ["hwmon4"] },
    commands: {
      "amd-smi list --json": captured("amd-smi-list.json"),
      "amd-smi static --asic --json": captured("amd-smi-static-asic.json"),
    },
  });
  const facts = await probeHardware(deps);
  assert.deepEqual(facts.hardware.gpus, [{
    device_index: 0,
    name: "AMD Radeon 8060S",
    memory_bytes: 103079215104,
    memory_kind: "dedicated",
    power_limit_w: 120,
  }]);
  assert.deepEqual(facts.runtime, [{ name: "rocm", version: "7.0.1" }]);
  assert.equal(facts.drivers, null, "amdgpu built into the kernel has no version to read");
  assert.match(facts.missing["/software/drivers"] ?? "", /built into the kernel/);
});

Deno.test("Apple silicon: one shared GPU named after the chip, macOS as the metal runtime, no driver, no power", async () => {
  const deps = fakeDeps({
    platform: "darwin",
    arch: "arm64",
    osRelease: "24.1.0",
    commands: {
      "sysctl -n machdep.cpu.brand_string": "Apple M2 Max\n",
      "sysctl -n hw.memsize": "68719476736\n",
      "sw_vers -productVersion": "15.1\n",
    },
  });
  const facts = await probeHardware(deps);
  assert.deepEqual(facts.hardware.gpus, [{
    device_index: 0,
    name: "Apple M2 Max",
    memory_bytes: 68719476736,
    memory_kind: "shared",
    power_limit_w: null,
  }]);
  assert.ok(facts.missing["/hardware/gpus/0/power_limit_w"]);
  assert.equal(facts.drivers, null);
  assert.match(facts.missing["/software/drivers"] ?? "", /^not applicable/);
  assert.deepEqual(facts.runtime, [{ name: "metal", version: "15.1" }]);
  assert.deepEqual(facts.os, { name: "macOS", version: "15.1" });
  assert.equal(facts.hardware.cpu, "Apple M2 Max");
  assert.equal(facts.hardware.ram_bytes, 68719476736);
  assert.equal(facts.hardware.storage, null);
  assert.ok(facts.missing["/hardware/storage"]);
  assert.equal(deps.calls.some((c) => c.startsWith("nvidia-smi")), false, "no NVIDIA probe on a Mac");
});

Deno.test("everything refused (no read, no sys, no run): every fact is null with a reason naming a flag", async () => {
  const refuse = { refuse: "permission" } as const;
  const deps = fakeDeps({
    refuseSys: true,
    files: {
      "/proc/cpuinfo": refuse,
      "/proc/meminfo": refuse,
      "/etc/os-release": refuse,
      "/usr/lib/os-release": refuse,
    },
    commands: { [NVIDIA_QUERY]: refuse, [ROCM_QUERY]: refuse },
  });
  const facts = await probeHardware(deps);
  assert.equal(facts.hardware.gpus, null);
  assert.equal(facts.hardware.cpu, null);
  assert.equal(facts.hardware.ram_bytes, null);
  assert.equal(facts.os, null);
  for (const pointer of ["/hardware/gpus", "/hardware/cpu", "/hardware/ram_bytes", "/software/os"]) {
    assert.match(facts.missing[pointer] ?? "", /--allow-/, pointer);
  }
});

const LSBLK = "lsblk -J -d -o NAME,MODEL,TRAN,ROTA,TYPE,SUBSYSTEMS";

Deno.test("storage under the narrow permission set comes from lsblk: /sys is never needed", async () => {
  const refuse = { refuse: "permission" } as const;
  const deps = fakeDeps({
    ...LINUX_BASICS,
    dirs: {},
    files: { ...LINUX_BASICS.files, "/sys/block/vda/queue/rotational": refuse },
    commands: {
      [LSBLK]: JSON.stringify({
        blockdevices: [
          { name: "zram0", model: null, tran: null, rota: false, type: "disk", subsystems: "block" },
          { name: "loop0", model: null, tran: null, rota: false, type: "loop", subsystems: "block" },
          { name: "nvme0n1", model: "Samsung SSD 980 PRO 2TB", tran: "nvme", rota: false, type: "disk" },
          {
            name: "sda",
            model: "ST4000DM004-2CV1",
            tran: "sata",
            rota: true,
            type: "disk",
            subsystems: "block:scsi:pci",
          },
          { name: "vda", model: null, tran: null, rota: true, type: "disk", subsystems: "block:virtio:pci" },
        ],
      }),
    },
  });
  const facts = await probeHardware(deps);
  assert.deepEqual(facts.hardware.storage, [
    { kind: "ssd", model: "Samsung SSD 980 PRO 2TB", bus: "nvme" },
    { kind: "hdd", model: "ST4000DM004-2CV1", bus: "sata" },
    { kind: null, model: null, bus: "virtio" },
  ]);
  assert.match(facts.missing["/hardware/storage/2/kind"] ?? "", /virtual disk \(virtio\)/);
  assert.match(facts.missing["/hardware/storage/2/model"] ?? "", /a virtual disk has none/);
  assert.ok(!deps.calls.some((c) => c.includes("/sys/")), "nothing under /sys was read");
});

Deno.test("an lsblk without the SUBSYSTEMS column is asked again without it", async () => {
  const deps = fakeDeps({
    ...LINUX_BASICS,
    commands: {
      [LSBLK]: { code: 1, stdout: "", stderr: "lsblk: unknown column: SUBSYSTEMS" },
      "lsblk -J -d -o NAME,MODEL,TRAN,ROTA,TYPE":
        '{"blockdevices":[{"name":"sda","model":"X","tran":"sata","rota":"0","type":"disk"}]}',
    },
  });
  const facts = await probeHardware(deps);
  assert.deepEqual(facts.hardware.storage, [{ kind: "ssd", model: "X", bus: "sata" }]);
});

Deno.test("no lsblk and /sys refused: storage is null with both reasons", async () => {
  const deps = fakeDeps({ ...LINUX_BASICS, dirs: {}, links: {} });
  const facts = await probeHardware(deps);
  assert.equal(facts.hardware.storage, null);
  assert.match(facts.missing["/hardware/storage"] ?? "", /^lsblk not found; /);
});

Deno.test("ROCm 7 through amd-smi's static JSON alone: name, VRAM, power cap; a built-in amdgpu has no driver version", async () => {
  const deps = fakeDeps({
    ...LINUX_BASICS,
    files: { ...LINUX_BASICS.files, "/opt/rocm/.info/version": "7.1.0-20\n" },
    commands: {
      "amd-smi static --asic --vram --limit --driver --bus --json": captured("amd-smi-static-rocm7.json"),
    },
  });
  const facts = await probeHardware(deps);
  assert.deepEqual(facts.hardware.gpus?.[0], {
    device_index: 0,
    name: "AMD Radeon 8060S",
    memory_bytes: 512 * 1024 * 1024,
    memory_kind: "dedicated",
    power_limit_w: 120,
  });
  assert.match(facts.hardware.gpus?.[1]?.name ?? "", /AMD GPU 1 at 0000:c4:00\.0 \(amd-smi reports no market name\)/);
  assert.equal(facts.drivers, null);
  assert.match(facts.missing["/software/drivers"] ?? "", /built into the kernel/);
  assert.deepEqual(facts.runtime, [{ name: "rocm", version: "7.1.0" }]);
  assert.ok(!deps.calls.some((c) => c.includes("/sys/")), "nothing under /sys was read");
  assert.ok(facts.missing["/hardware/gpus/1/memory_bytes"]);
});

Deno.test("device selection: every GPU when no *_VISIBLE_DEVICES is set; the listed indices; UUIDs are no indices", async () => {
  const machine = {
    ...LINUX_BASICS,
    commands: { [NVIDIA_QUERY]: captured("nvidia-smi-query-2gpu.csv"), "nvidia-smi": "CUDA Version: 12.8" },
  };
  const all = await probeHardware(fakeDeps(machine));
  assert.deepEqual(all.deviceSelection.selected_device_indices, [0, 1]);
  assert.match(all.deviceSelection.reason, /the engine sees every GPU/);
  const one = await probeHardware(fakeDeps({ ...machine, env: { CUDA_VISIBLE_DEVICES: "1" } }));
  assert.deepEqual(one.deviceSelection.selected_device_indices, [1]);
  assert.equal(one.deviceSelection.cuda_visible_devices, "1");
  const uuid = await probeHardware(fakeDeps({ ...machine, env: { CUDA_VISIBLE_DEVICES: "GPU-8f2c1d3e" } }));
  assert.equal(uuid.deviceSelection.selected_device_indices, null);
  assert.match(uuid.deviceSelection.reason, /names no device indices/);
  const profile = await probeHardware(fakeDeps({ ...machine, env: { CUDA_VISIBLE_DEVICES: "1" } }), {
    engineEnv: { CUDA_VISIBLE_DEVICES: "0" },
  });
  assert.deepEqual(profile.deviceSelection.selected_device_indices, [0], "the profile's engine env wins");
  const hip = await probeHardware(fakeDeps({ ...machine, env: { HIP_VISIBLE_DEVICES: "0,1" } }));
  assert.deepEqual(hip.deviceSelection.selected_device_indices, [0, 1]);
});
