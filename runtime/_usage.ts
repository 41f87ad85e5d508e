/** CPU time and memory of this process, for benchmarks that report what the client itself cost. */
import process from "node:process";

/**
 * CPU seconds (user + system) used by this process so far, its resident set size in bytes now, and the largest it
 * has been (the operating system's high-water mark).
 */
export function resourceUsage(): { cpuS: number; rssBytes: number; peakRssBytes: number } {
  const cpu = process.cpuUsage();
  return {
    cpuS: (cpu.user + cpu.system) / 1e6,
    rssBytes: process.memoryUsage.rss(),
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
  };
}
