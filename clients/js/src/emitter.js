// A small event emitter: on(name, fn) returns the function that removes the listener. A
// listener that throws does not stop the others nor the client: its error is thrown again
// outside the client's handling of the message (and reported as an uncaught error).

export class Emitter {
  constructor() {
    /** @type {Map<string, Set<Function>>} */
    this._listeners = new Map();
  }

  /** Call `fn` for every `name` emitted; returns a function that stops it. */
  on(name, fn) {
    if (!this._listeners.has(name)) this._listeners.set(name, new Set());
    this._listeners.get(name).add(fn);
    return () => this.off(name, fn);
  }

  /** Call `fn` for the next `name` only. */
  once(name, fn) {
    const off = this.on(name, (...args) => { off(); fn(...args); });
    return off;
  }

  off(name, fn) {
    const set = this._listeners.get(name);
    if (set) set.delete(fn);
  }

  emit(name, ...args) {
    const set = this._listeners.get(name);
    if (!set) return;
    for (const fn of [...set]) {
      try {
        fn(...args);
      } catch (err) {
        setTimeout(() => { throw err; }, 0);
      }
    }
  }
}
