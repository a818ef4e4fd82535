export const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
export const uuidNamespace = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
export const commit = 'e4bf922d83b877a116763e2f83d2d9b6701871f9';
export const serviceToken = process.env.SERVICE_TOKEN;
