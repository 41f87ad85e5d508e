/**
 * The only part of the toolkit that names Deno, Bun or `process`. Everything else receives these functions as
 * parameters (or imports them from here in cli/), so the same code runs under Deno and Bun.
 */
export {
  args,
  clearStatusLine,
  collectGarbage,
  exit,
  rewriteStderrLine,
  runtimeName,
  stderrRedraws,
  stdoutIsTerminal,
  writeStderr,
  writeStdout,
  writeStdoutStyled,
} from "./_process.ts";
export { type StyledText } from "./_status_line.ts";
export { everyMs } from "./_timers.ts";
export { escapeTerminalText } from "./_terminal_text.ts";
export { env, invocationFolder } from "./_env.ts";
export { errnoKind, errnoOf, errorLine, errorMessage, WRITE_FAILURE_WORDS } from "./_errno.ts";
export { concatBytes, FileReadError, readFile, readTextFile } from "./_files.ts";
export { FolderFileError, openSafeFolder, type SafeFolder } from "./_folder_files.ts";
export { type FolderWriter, openFolderWriter } from "./_folder_writer.ts";
export { type Outcome, refusalFrom, refusedPermissionFlag } from "./_refusal.ts";
export { type CommandOutput, MAX_COMMAND_OUTPUT_BYTES, runCommand } from "./_command.ts";
export { sys } from "./_sys.ts";
export { toolkitCacheDir, toolkitDirFromModule } from "./_toolkit_folders.ts";
export {
  type FileFacts,
  type FileReader,
  lstatOutcome,
  openReaderOutcome,
  readDirOutcome,
  readTextOutcome,
  realPathOutcome,
  statOutcome,
  writeNewTextOutcome,
  writeTextOutcome,
} from "./_file_access.ts";
export { onTerminationSignal } from "./_signals.ts";
export { type ProcessExit, type SpawnedProcess, spawnProcess } from "./_spawn.ts";
export { LOAD_V8_FLAGS, selfCommand } from "./_self.ts";
export { type ResultFiles, resultFiles } from "./_result_files.ts";
export { type HttpServerRequest, type HttpServerResponse, serveHttp } from "./_http_server.ts";
export { resourceUsage } from "./_usage.ts";
export { openLineWriter } from "./_line_writer.ts";
