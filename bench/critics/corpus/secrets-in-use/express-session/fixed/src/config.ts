function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set`);
  return value;
}

export const config = { sessionSecret: required('SESSION_SECRET') };
