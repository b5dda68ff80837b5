// Renders TeX to KaTeX HTML for the MkDocs build: one JSON request per line on stdin,
// one JSON answer per line on stdout. A single long-lived process serves a whole build,
// so Node starts once instead of once per formula.
import { createInterface } from "node:readline";
import katex from "katex";

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  const { tex, display } = JSON.parse(line);
  let answer;
  try {
    answer = { html: katex.renderToString(tex, {
      displayMode: Boolean(display),
      throwOnError: true,
      strict: "error",
      output: "htmlAndMathml",
      trust: false,
    }) };
  } catch (err) {
    answer = { error: String(err && err.message ? err.message : err) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
