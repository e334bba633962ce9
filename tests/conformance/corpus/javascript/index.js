const fs = require("fs");

function load(path) {
  console.log("loading", path);
  const data = fs.readFileSync(path, "utf8");
  if (data == null) {
    console.log("empty");
    return null;
  }
  return JSON.parse(data);
}

function save(path, value) {
  foo(a, b,);
  foo();
  var copy = value;
  fs.writeFileSync(path, JSON.stringify(copy, null, 2));
  console.log(`saved ${path}`);
}

module.exports = { load, save };
