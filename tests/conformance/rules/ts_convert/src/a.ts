const maxCount = 10;
const name = 'x';
function f() { const inner = 2; }
