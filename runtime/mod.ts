/**
 * The only part of the toolkit that names Deno, Bun or `process`. Everything else receives these functions as
 * parameters (or imports them from here in cli/), so the same code runs under Deno and Bun.
 */
export {
  args,
  clearStatusLine,
  colorAllowed,
  exit,
  rewriteStderrLine,
  runtimeName,
  stderrIsTerminal,
  stderrRedraws,
  stdoutIsTerminal,
  terminalColumns,
  writeStderr,
  writeStdout,
} from "./_process.ts";
export { renderStatusLine, type StatusLineLook, type StyledText, TEXT_STYLES, type TextStyle } from "./_status_line.ts";
export { everyMs } from "./_timers.ts";
export { escapeTerminalText, hasTerminalControls } from "./_terminal_text.ts";
export { env, invocationFolder } from "./_env.ts";
export { DEFAULT_MAX_READ_BYTES, FileReadError, readFile, readTextFile } from "./_files.ts";
export {
  type FolderEntry,
  FolderFileError,
  type FolderFileProblem,
  openSafeFolder,
  type SafeFolder,
} from "./_folder_files.ts";
export { type FolderWriter, openFolderWriter } from "./_folder_writer.ts";
export type { FileProblem } from "./_files.ts";
export { type Outcome, type Refusal, refusalFrom, refusedPermissionFlag } from "./_refusal.ts";
export { type CommandOutput, runCommand, type RunCommandOptions } from "./_command.ts";
export { sys } from "./_sys.ts";
export {
  type FileFacts,
  type FileReader,
  type LinkFacts,
  lstatOutcome,
  openReaderOutcome,
  readDirOutcome,
  readTextOutcome,
  realPathOutcome,
  removeFileOutcome,
  statOutcome,
  writeTextOutcome,
} from "./_file_access.ts";
export { onParentExit, onTerminationSignal, PARENT_EXITED, type TerminationSignal } from "./_signals.ts";
export { type ProcessExit, type SpawnedProcess, spawnProcess, type SpawnProcessOptions } from "./_spawn.ts";
export { type ResultFiles, resultFiles, type RootCheck } from "./_result_files.ts";
export {
  type HttpServerHandle,
  type HttpServerRequest,
  type HttpServerResponse,
  serveHttp,
  type ServeHttpOptions,
} from "./_http_server.ts";
export { resourceUsage } from "./_usage.ts";
export { type LineWriter, openLineWriter } from "./_line_writer.ts";
