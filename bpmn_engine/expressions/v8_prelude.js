// Installed once in each isolate by bpmn_engine/expressions/v8_host.py, which writes the
// longest JSON text a value may have in place of __MAX_JSON__.
(function (MAX_JSON) {
  // sloppy on purpose: `with` puts the variables in scope, direct `eval` keeps the script's
  // completion value (its last expression) and its `var`s local to this call
  function __bpmn_evaluate(__bpmn_source, __bpmn_scope) {
    with (__bpmn_scope) { return eval(__bpmn_source); }
  }
  (function (evaluate, MAX_JSON) {
    "use strict";
    const G = globalThis;
    const O = Object, R = Reflect, S = String;
    const stringify = JSON.stringify, parse = JSON.parse, isArray = Array.isArray;
    const freeze = O.freeze, create = O.create, getProto = O.getPrototypeOf;
    const describeKey = O.getOwnPropertyDescriptor, define = O.defineProperty;
    const ownKeys = R.ownKeys, apply = R.apply, remove = R.deleteProperty;
    const hasOwn = O.prototype.hasOwnProperty, isFiniteNumber = Number.isFinite;
    const BOXES = [Number.prototype, S.prototype, Boolean.prototype];
    const PLAIN = [O.prototype, null];
    const Problem = TypeError, TooBig = RangeError;
    // a task (not a promise job) for settle(): V8 runs it only once no promise job is left
    const waitAsync = Atomics.waitAsync, notify = Atomics.notify;
    // RegExp.$1-$9, input, lastMatch, leftContext, rightContext: V8 keeps the last match of
    // the isolate there, so every evaluation begins with an empty match of an empty string
    const exec = RegExp.prototype.exec, nothing = /(?:)/;
    function forgetMatches() { apply(exec, nothing, [""]); }
    const Shared = SharedArrayBuffer, Int32 = Int32Array;
    // host hooks a script has no use for, and that would run code after it ended
    for (const name of ["setTimeout", "clearTimeout", "__timer_manager", "WebAssembly",
                        "FinalizationRegistry", "WeakRef", "Atomics", "SharedArrayBuffer"]) {
      if (!remove(G, name)) G[name] = undefined;  // mini-racer declares some with `var`
    }
    const hardened = new Set();
    function harden(value) {
      if (value === null || (typeof value !== "object" && typeof value !== "function")) return;
      if (hardened.has(value)) return;
      hardened.add(value);
      freeze(value);
      harden(getProto(value));
      for (const key of ownKeys(value)) {
        const d = describeKey(value, key);
        if (d === undefined) continue;
        if ("value" in d) harden(d.value); else { harden(d.get); harden(d.set); }
      }
    }
    const hidden = [function* () {}, async function () {}, async function* () {},
                    [][Symbol.iterator](), ""[Symbol.iterator](), new Map().entries(),
                    new Set().values(), /x/[Symbol.matchAll]("")];
    for (const value of hidden) harden(value);
    harden(getProto(G));
    for (const key of ownKeys(G)) {
      if (key === "globalThis") continue;
      const d = describeKey(G, key);
      if ("value" in d) harden(d.value); else { harden(d.get); harden(d.set); }
      if (d.configurable || d.writable) {
        define(G, key, "value" in d ? {configurable: false, writable: false}
                                    : {configurable: false});
      }
    }

    function typeName(value) {
      const proto = getProto(value);
      const d = proto === null ? undefined : describeKey(proto, "constructor");
      const name = d && typeof d.value === "function" ? d.value.name : "";
      if (!name) return "an object";
      return ("AEIOU".includes(name[0]) ? "an " : "a ") + name;
    }
    function crossing(what) {
      return function (key, value) {
        const where = key === "" ? what : what + " (at key " + stringify(S(key)) + ")";
        switch (typeof value) {
          case "undefined": return null;
          case "function":
            throw new Problem(where + " is a function: functions stay in JavaScript");
          case "symbol": throw new Problem(where + " is a symbol, which has no JSON form");
          case "bigint": throw new Problem(where + " is a BigInt, which has no JSON form");
          case "number":
            if (!isFiniteNumber(value)) {
              throw new Problem(where + " is " + S(value) + ", which has no JSON form");
            }
            return value;
          case "object":
            if (value === null || isArray(value)) return value;
            const proto = getProto(value);
            if (PLAIN.includes(proto) || BOXES.includes(proto)) return value;
            throw new Problem(where + " is " + typeName(value) + ": only plain objects, " +
                              "arrays, strings, numbers, booleans and null leave JavaScript");
        }
        return value;
      };
    }
    function out(value, what) {
      let text;
      try {
        text = stringify(value, crossing(what));
      } catch (error) {
        if (error instanceof TypeError && S(error.message).startsWith("Converting circular")) {
          throw new Problem(what + " refers to itself (a cyclic value has no JSON form)");
        }
        if (error instanceof RangeError) {
          throw new Problem(what + " is nested too deeply to leave JavaScript");
        }
        throw error;
      }
      if (text.length > MAX_JSON) {
        throw new TooBig(what + " is " + text.length + " characters long as JSON (limit " +
                         MAX_JSON + ")");
      }
      return text;
    }
    function explain(error) {
      try {
        if (error instanceof Error) {
          const stack = S(error.stack || "");
          const at = /eval at __bpmn_evaluate \([^)]*\), <anonymous>:(\d+):(\d+)\)/.exec(stack);
          const where = at ? " (line " + at[1] + ", column " + at[2] + ")" : "";
          return S(error.name) + ": " + S(error.message) + where;
        }
        return "uncaught " + typeof error + ": " + S(error);
      } catch (_) {
        return "an exception that cannot be shown";
      }
    }

    // mode: "condition" (its value; no setVariable), "script" (what it set), "result" (both)
    function run(source, payload, mode) {
      forgetMatches();
      const isScript = mode !== "condition";
      const variables = create(null), scope = create(null), changes = create(null);
      const input = parse(payload);
      for (const name of ownKeys(input)) {
        variables[name] = input[name];
        if (name !== "eval") scope[name] = input[name];
      }
      const known = (name) => apply(hasOwn, variables, [S(name)]);
      scope.execution = freeze({
        getVariable(name) { return known(name) ? variables[S(name)] : null; },
        hasVariable(name) { return known(name); },
        getVariables() {
          const copy = {};
          for (const name of ownKeys(variables)) copy[name] = variables[name];
          return copy;
        },
        setVariable(name, value) {
          if (!isScript) {
            throw new Problem("a condition cannot set variables (execution.setVariable)");
          }
          if (typeof name !== "string" || name === "") {
            throw new Problem("execution.setVariable needs a variable name, not " + S(name));
          }
          variables[name] = value;
          changes[name] = value;
          if (name !== "eval") scope[name] = value;
        },
      });
      try {
        const value = evaluate(source, scope);
        const result = mode === "script" ? "null" : out(value, "the result");
        const parts = [];
        for (const name of ownKeys(changes)) {
          parts.push(stringify(name) + ":" + out(changes[name], "variable " + stringify(name)));
        }
        return '{"result":' + result + ',"changes":{' + parts.join(",") + "}}";
      } catch (error) {
        return stringify({error: explain(error)});
      }
    }
    function clean() {
      let ok = true;
      for (const key of ownKeys(G)) {
        if (!initial.has(key) && !remove(G, key)) ok = false;
      }
      return ok;
    }
    // settled() is 0 until every promise job the evaluation left has run and its globals are
    // gone: a job that queues another forever keeps it 0 (the host's time limit ends that)
    let state = 0;  // of the last settle(): 0 pending, 1 clean, 2 a global could not go
    function settle() {
      state = 0;
      const cell = new Int32(new Shared(4));
      const waiting = waitAsync(cell, 0, 0).value;
      notify(cell, 0);
      waiting.then(() => { state = clean() ? 1 : 2; });
    }
    function settled() { return state; }
    define(G, "__bpmn", {value: freeze({run: (...args) => { const answer = run(...args);
                                                             settle();
                                                             return answer; },
                                        settled}),
                         writable: false, configurable: false, enumerable: false});
    const initial = new Set(ownKeys(G));
  })(__bpmn_evaluate, MAX_JSON);
})(__MAX_JSON__);
