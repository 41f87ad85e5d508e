/**
 * Why a request's metric is null, read from the record alone, so that the record's `missing` map and the
 * summaries' exclusions say the same thing.
 */
import type { Metric, RequestRecord } from "../contract/mod.ts";

function failedWords(record: RequestRecord): string {
  return record.error === null ? "the request failed" : `the request failed (${record.error.kind})`;
}

/** The reason a metric of this record is null; call only when it is. */
export function explainNullMetric(record: RequestRecord, metric: Metric): string {
  if (record.status === "skipped") return `request was skipped: ${record.error?.message ?? "no reason recorded"}`;
  const noEngineTimings = record.sources.engine_timings === null ? " (no engine timings)" : "";
  switch (metric) {
    case "prompt_tps": {
      const { read_tokens: readTokens } = record.tokens;
      const promptS = record.timings.prompt_s;
      if (readTokens === null) return `read_tokens is null${noEngineTimings}`;
      if (promptS === null) return `prompt_s is null${noEngineTimings}`;
      if (readTokens === 0) return "read_tokens is 0: the whole prompt came from the cache";
      if (promptS === 0) return "prompt_s is 0: the engine timed no prompt processing";
      return "prompt rate is not finite";
    }
    case "decode_tps": {
      const decodeTokens = record.tokens.decode_tokens;
      const decodeS = record.timings.decode_s;
      if (decodeTokens === null) return `decode_tokens is null${noEngineTimings}`;
      if (decodeS === null) return `decode_s is null${noEngineTimings}`;
      if (decodeTokens === 0) return "decode_tokens is 0: nothing was decoded";
      if (decodeS === 0) return "decode_s is 0: the engine timed no decoding";
      return "decode rate is not finite";
    }
    case "ttft_s":
      if (record.status === "failed") {
        return `no reasoning, answer or tool-call delta arrived before ${failedWords(record)}`;
      }
      return "no reasoning, answer or tool-call delta arrived";
    case "first_answer_s":
      if (record.status === "failed") return `no answer text or tool call arrived before ${failedWords(record)}`;
      if (record.status === "truncated") {
        const whileWhat = record.first_delta_kind === "reasoning" ? " while reasoning" : "";
        return `no answer text or tool call arrived: the request reached its ${record.max_output_tokens}-token ` +
          `cap${whileWhat}`;
      }
      return record.first_delta_kind === "reasoning"
        ? "no answer text or tool call arrived: the stream finished after reasoning only"
        : "no answer text or tool call arrived: the stream finished without any content";
    case "total_s":
      return "the client recorded no valid end time";
  }
}
