interface User {
  id: number;
  name: string;
}

export class UserService {
  private users: User[] = [];

  add(user: User): void {
    console.log("add", user.id);
    this.users.push(user);
  }

  find(id: number): User | undefined {
    return this.users.find((u) => u.id === id);
  }

  async load(url: string): Promise<User[]> {
    const res = await fetch(url);
    const body = (await res.json()) as User[];
    console.log("loaded", body.length);
    return body;
  }
}

export function isSame(a: User, b: User): boolean {
  return a.id === b.id && a.name === a.name;
}
