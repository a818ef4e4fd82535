import jwt from 'jsonwebtoken';

export const adminToken = jwt.sign({ sub: 'admin-42', role: 'admin' }, process.env.TEST_JWT_SECRET ?? 'test-secret');

export const authHeader = { Authorization: `Bearer ${adminToken}` };
