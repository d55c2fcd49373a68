// Installed once in each isolate by bpmn_engine/expressions/v8_host.py, which writes the
// longest JSON text a value may have in place of __MAX_JSON__.
(function (MAX_JSON) {
  // sloppy on purpose: `with` puts the variables in scope, direct `eval` keeps the script's
  // completion value (its last expression) and its `var`s local to this call. bpmn-engine's
  // names are parameters: a process variable of the same name hides them (the `with` comes
  // first), and a script's own `var`/`function` of that name replaces them, as it would a
  // global in bpmn-engine; what the bindings hold at the end (read outside the `with`, which
  // a variable could otherwise answer) tells which were replaced
  function __bpmn_evaluate(__bpmn_source, __bpmn_scope, __bpmn_bindings, environment, next,
                           content, variables, services) {
    try {
      with (__bpmn_scope) { return eval(__bpmn_source); }
    } finally {
      __bpmn_bindings.push(environment, next, content, variables, services);
    }
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

    // Camunda's methods of `execution` that reach its Java engine: a clear error, by name
    const JAVA_ONLY = ["getProcessEngineServices", "getProcessEngine", "getBpmnModelInstance",
                       "getBpmnModelElementInstance", "getProcessInstance", "getSuperExecution",
                       "getSubProcessInstance", "createIncident", "resolveIncident",
                       "setProcessBusinessKey"];
    const DIALECT = ["environment", "next", "content", "variables", "services"];
    const MENTIONS = /\b(?:environment|next|content|variables|services)\b/;
    function typeOf(value) {  // Camunda's value type names, for getVariableTyped
      if (value === null || value === undefined) return "null";
      switch (typeof value) {
        case "string": return "string";
        case "boolean": return "boolean";
        case "number":
          if (!Number.isInteger(value)) return "double";
          return value >= -2147483648 && value <= 2147483647 ? "integer" : "long";
      }
      return "json";
    }
    function typed(value) {
      const type = typeOf(value);
      const valueType = freeze({name: type, getName() { return type; }});
      return freeze({value, type: valueType, getValue() { return value; },
                     getType() { return valueType; }, isTransient() { return false; }});
    }
    function describe(error) {
      if (error instanceof Error) return S(error.message);
      try { return typeof error === "object" ? stringify(error) : S(error); }
      catch (_) { return "an error that cannot be shown"; }
    }

    // the state of the evaluation run() started, answered by finish() once its promise jobs
    // have run (a script may call next() from one)
    let pending = null;

    // mode: "condition" (a value; nothing set), "script" (what it set), "result" (both)
    function run(source, payload, mode, facts) {
      const watch = MENTIONS.test(source);  // before the matches are forgotten
      forgetMatches();
      const isScript = mode !== "condition";
      const about = parse(facts);
      const variables = create(null), scope = create(null), changes = create(null);
      const locals = create(null), localNames = new Set(about.locals || []);
      const removed = new Set(), touched = new Set();
      const input = parse(payload);
      for (const name of ownKeys(input)) {
        variables[name] = input[name];
        if (name !== "eval") scope[name] = input[name];
      }
      const known = (name) => apply(hasOwn, variables, [S(name)]);
      function writing(method) {
        if (!isScript) {
          throw new Problem("a condition cannot set variables (execution." + method + ")");
        }
      }
      function named(method, name) {
        if (typeof name !== "string" || name === "") {
          throw new Problem("execution." + method + " needs a variable name, not " + S(name));
        }
        return name;
      }
      // bpmn-engine's environment.variables (and .output, the same object here): a copy made
      // when first read; what differs from the variables at the end was written
      let shared = null, original = null;
      function sharedVariables() {
        if (shared === null) {
          shared = parse(payload);
          original = parse(payload);
          for (const name of ownKeys(changes)) shared[name] = changes[name];
          for (const name of removed) remove(shared, name);
        }
        return shared;
      }
      function put(name, value, local) {
        variables[name] = value;
        if (name !== "eval") scope[name] = value;
        removed.delete(name);
        if (local) {
          locals[name] = value;
          localNames.add(name);
        } else {
          changes[name] = value;
          if (shared !== null) shared[name] = value;
        }
      }
      function drop(name, local) {
        remove(variables, name);
        remove(scope, name);
        remove(locals, name);
        if (local) { localNames.delete(name); return; }
        remove(changes, name);
        removed.add(name);
        if (shared !== null) remove(shared, name);
      }
      function fact(method, key) {
        return function () {
          if (!apply(hasOwn, about, [key])) {
            throw new Problem("execution." + method + "() is not known where this code runs");
          }
          return about[key];
        };
      }
      const execution = {
        getVariable(name) { return known(name) ? variables[S(name)] : null; },
        getVariableLocal(name) {
          return localNames.has(S(name)) && known(name) ? variables[S(name)] : null;
        },
        getVariableTyped(name) { return known(name) ? typed(variables[S(name)]) : null; },
        getVariableLocalTyped(name) {
          return localNames.has(S(name)) && known(name) ? typed(variables[S(name)]) : null;
        },
        hasVariable(name) { return known(name); },
        hasVariableLocal(name) { return localNames.has(S(name)) && known(name); },
        hasVariables() { return ownKeys(variables).length > 0; },
        getVariables() {
          const copy = {};
          for (const name of ownKeys(variables)) copy[name] = variables[name];
          return copy;
        },
        getVariablesLocal() {
          const copy = {};
          for (const name of localNames) if (known(name)) copy[name] = variables[name];
          return copy;
        },
        getVariableNames() { return ownKeys(variables); },
        getVariableNamesLocal() { return [...localNames].filter(known); },
        setVariable(name, value) {
          writing("setVariable");
          put(named("setVariable", name), value, false);
        },
        setVariableLocal(name, value) {
          writing("setVariableLocal");
          put(named("setVariableLocal", name), value, true);
        },
        setVariables(values) {
          writing("setVariables");
          for (const name of ownKeys(values || {})) put(named("setVariables", name), values[name], false);
        },
        setVariablesLocal(values) {
          writing("setVariablesLocal");
          for (const name of ownKeys(values || {})) put(named("setVariablesLocal", name), values[name], true);
        },
        removeVariable(name) {
          writing("removeVariable");
          drop(named("removeVariable", name), false);
        },
        removeVariableLocal(name) {
          writing("removeVariableLocal");
          drop(named("removeVariableLocal", name), true);
        },
        removeVariables(names) {
          writing("removeVariables");
          for (const name of (names === undefined ? ownKeys(variables) : [...names])) {
            drop(named("removeVariables", name), false);
          }
        },
        getId: fact("getId", "execution"),
        getProcessInstanceId: fact("getProcessInstanceId", "instance"),
        getProcessDefinitionId: fact("getProcessDefinitionId", "definition"),
        getActivityId: fact("getActivityId", "element"),
        getCurrentActivityId: fact("getCurrentActivityId", "element"),
        getCurrentActivityName: fact("getCurrentActivityName", "name"),
        getActivityInstanceId: fact("getActivityInstanceId", "activityInstance"),
        getEventName: fact("getEventName", "event"),
        getBusinessKey() { return null; },
        getProcessBusinessKey() { return null; },
        getTenantId() { return null; },
        getCurrentTransitionId() { return null; },
      };
      for (const method of JAVA_ONLY) {
        execution[method] = function () {
          throw new Problem("execution." + method + "() reaches Camunda's Java engine, which " +
                            "a script here cannot: only the variables and the facts of the " +
                            "execution are there (docs/javascript.md)");
        };
      }
      scope.execution = freeze(execution);

      // bpmn-engine (paed01): environment, next(err, value), content, this
      let calls = 0, failure, output;
      function nextCallback(error, value) {
        calls += 1;
        if (calls > 1) return;  // the first call decides, as a callback's does
        if (error) failure = error; else output = value;
      }
      const services = new Proxy(create(null), {
        get(target, key) {
          if (typeof key === "symbol" || key === "toJSON") return undefined;
          const name = S(key);
          throw new Problem("environment.services." + name + ": bpmn-engine's services are " +
                            "JavaScript functions its host program passes in, and a script " +
                            "here has none; call the service from a service task instead " +
                            "(implementation=\"${environment.services." + name + "}\"), " +
                            "which a --handlers function named " + name + " serves");
        },
      });
      const environment = {
        get variables() { touched.add("environment"); return sharedVariables(); },
        get output() { touched.add("environment"); return sharedVariables(); },
        get services() { touched.add("environment"); return services; },
        settings: {},
        assignVariables(values) {
          touched.add("environment");
          const target = sharedVariables();
          for (const name of ownKeys(values || {})) target[name] = values[name];
        },
        getServiceByName(name) { return services[name]; },
      };
      const content = about.content || {};
      const self = create(null);
      const offered = {environment, next: nextCallback, content, services};
      for (const name of ["environment", "next", "content", "services"]) {
        define(self, name, {get() { touched.add(name); return offered[name]; },
                            enumerable: true});
      }
      define(self, "variables", {get() { touched.add("environment"); return sharedVariables(); },
                                 enumerable: true});
      for (const name of ["id", "type", "name", "executionId"]) {
        define(self, name, {value: content[name], enumerable: true});
      }
      const noop = () => undefined;
      define(self, "logger", {value: {debug: noop, error: noop, warn: noop, info: noop},
                              enumerable: true});
      // every free name the code looks up passes the scope's `has`: what it asked for (only
      // watched in code that names bpmn-engine's: the trap slows every lookup down)
      const lookups = new Set();
      const visible = !watch ? scope : new Proxy(scope, {
        has(target, key) {
          if (typeof key === "string") lookups.add(key);
          return R.has(target, key);
        },
      });
      const state = {mode, isScript, changes, removed, locals, shared: () => shared,
                     original: () => original, calls: () => calls, failure: () => failure,
                     output: () => output, value: undefined, error: null, replaced: null,
                     touched, lookups, variables};
      pending = state;
      try {
        const mine = [environment, nextCallback, content, lazyVariables(), services];
        const bindings = [];
        state.value = apply(evaluate, self, [source, visible, bindings, ...mine]);
        state.replaced = new Set();
        for (let i = 0; i < DIALECT.length; i++) {
          if (bindings[i] !== mine[i]) state.replaced.add(DIALECT[i]);
        }
      } catch (error) {
        state.error = error;
      }
      function lazyVariables() {
        // a bare `variables` (bpmn-engine before v5) is the shared copy too; made on use
        return new Proxy(create(null), {
          get(target, key) { return R.get(sharedVariables(), key); },
          set(target, key, value) { return R.set(sharedVariables(), key, value); },
          has(target, key) { return R.has(sharedVariables(), key); },
          deleteProperty(target, key) { return R.deleteProperty(sharedVariables(), key); },
          ownKeys(target) { return R.ownKeys(sharedVariables()); },
          getOwnPropertyDescriptor(target, key) {
            const d = R.getOwnPropertyDescriptor(sharedVariables(), key);
            if (d) d.configurable = true;
            return d;
          },
        });
      }
    }

    // the answer of the evaluation run() started, once its promise jobs have run
    function finish() {
      const state = pending;
      pending = null;
      if (state === null) return stringify({error: "no evaluation to finish"});
      const {lookups, variables, replaced} = state;
      const used = (name) => state.touched.has(name) || (lookups.has(name) &&
        !apply(hasOwn, variables, [name]) && replaced !== null && !replaced.has(name));
      const dialect = DIALECT.some(used);
      try {
        if (state.error !== null) throw state.error;
        const parts = [];
        if (state.calls() > 0) {
          if (state.failure()) {
            return stringify({error: "the script called next() with an error: " +
                                     describe(state.failure())});
          }
          parts.push('"output":' + out(state.output(), "the value given to next()"));
        } else if (used("next")) {
          return stringify({error: "the script ended without calling next(): bpmn-engine " +
                                   "waits for next() to end it, so it would never end"});
        }
        // a script that called next() gave its value there: its last one (often the promise
        // whose job called next) is not its result
        const last = state.mode === "script" || state.calls() > 0;
        parts.push('"result":' + (last ? "null" : out(state.value, "the result")));
        const changes = state.changes, removed = state.removed, shared = state.shared();
        if (shared !== null) {  // what environment.variables holds that it did not
          const original = state.original();
          for (const name of ownKeys(original)) {
            if (!apply(hasOwn, shared, [name])) { removed.add(name); remove(changes, name); }
          }
          for (const name of ownKeys(shared)) {
            if (apply(hasOwn, changes, [name])) continue;
            if (!apply(hasOwn, original, [name]) ||
                stringify(shared[name]) !== stringify(original[name])) {
              if (!state.isScript) {
                throw new Problem("a condition cannot set variables (environment.variables." +
                                  S(name) + ")");
              }
              changes[name] = shared[name];
              removed.delete(name);
            }
          }
        }
        const written = [];
        for (const name of ownKeys(changes)) {
          written.push(stringify(name) + ":" + out(changes[name], "variable " + stringify(name)));
        }
        const local = [];
        for (const name of ownKeys(state.locals)) {
          local.push(stringify(name) + ":" + out(state.locals[name], "variable " + stringify(name)));
        }
        parts.push('"changes":{' + written.join(",") + "}");
        parts.push('"locals":{' + local.join(",") + "}");
        parts.push('"removed":' + stringify([...removed]));
        parts.push('"dialect":' + (dialect ? "true" : "false"));
        return "{" + parts.join(",") + "}";
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
    // the host calls run(), waits for settled(), calls finish(), waits again (the answer may
    // run the script's getters) and takes the answer: nothing of the script runs after that
    let answer = null;
    define(G, "__bpmn", {value: freeze({run: (...args) => { answer = null;
                                                             run(...args);
                                                             settle(); },
                                        finish: () => { answer = finish(); settle(); },
                                        take: () => { const text = answer;
                                                      answer = null;
                                                      return text; },
                                        settled}),
                         writable: false, configurable: false, enumerable: false});
    const initial = new Set(ownKeys(G));
  })(__bpmn_evaluate, MAX_JSON);
})(__MAX_JSON__);
