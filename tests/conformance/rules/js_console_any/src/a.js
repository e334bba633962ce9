console.log('a', 1);
try { f() } catch (e) { console.log(e) }
console.debug(x);
console.error(y);
