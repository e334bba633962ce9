function f() {
  const x = 1;
  return 2;
}
function g() {
  const y = 1;
  y++;
}
