class Emitter {
  constructor() {
    this.handlers = {};
  }

  on(name, fn) {
    var list = this.handlers[name] || [];
    list.push(fn);
    this.handlers[name] = list;
  }

  emit(name, ...args) {
    (this.handlers[name] || []).forEach((fn) => fn(...args));
    console.log("emitted", name, args.length);
  }
}

export default Emitter;
