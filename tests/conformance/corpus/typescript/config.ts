export const defaults = {
  retries: 3,
  timeout: 1000,
};

export function merge<T>(base: T, extra: Partial<T>): T {
  console.log("merge");
  return { ...base, ...extra };
}

let counter: number = 0;
export function next(): number {
  counter = counter + 1;
  return counter;
}
