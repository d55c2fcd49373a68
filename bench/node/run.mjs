// One run of a diagram through bpmn-engine (paed01) on Node, for bench/run.py:
//   node bench/node/run.mjs FILE  ->  one JSON line {ms, completed, state} or {error}
// `ms` is parse + run (bpmn-engine parses in `execute`); `completed` counts activity.end.
import { readFileSync } from "node:fs";
import { EventEmitter } from "node:events";
import { Engine } from "bpmn-engine";

const file = process.argv[2];
try {
  const source = readFileSync(file, "utf8");
  const began = performance.now();
  const engine = new Engine({ name: "bench", source });
  let completed = 0;
  const listener = new EventEmitter();
  listener.on("activity.end", () => {
    completed += 1;
  });
  const ended = new Promise((resolve, reject) => {
    engine.once("end", resolve);
    engine.once("error", reject);
  });
  await engine.execute({ listener });
  await ended;
  const ms = performance.now() - began;
  console.log(JSON.stringify({ ms, completed, state: engine.state }));
} catch (error) {
  console.log(JSON.stringify({ error: String(error && error.message ? error.message : error) }));
}
