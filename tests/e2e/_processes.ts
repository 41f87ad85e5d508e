/** Process facts the signal tests read from Linux /proc (through cat: Deno reads /proc task files only with -A). */

/** Whether `pid` is still running (a zombie waiting for its new parent to reap it has ended). */
export async function alive(pid: number): Promise<boolean> {
  const output = await new Deno.Command("cat", { args: [`/proc/${pid}/stat`], stderr: "null" }).output();
  const stat = new TextDecoder().decode(output.stdout);
  if (output.code !== 0 || stat === "") return false;
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state !== "Z" && state !== "X";
}
