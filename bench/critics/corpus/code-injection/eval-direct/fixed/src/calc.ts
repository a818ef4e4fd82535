import express from 'express';

const app = express();
app.use(express.json());

const OPERATIONS: Record<string, (a: number, b: number) => number> = {
  add: (a, b) => a + b,
  subtract: (a, b) => a - b,
};

app.post('/calculate', (req, res) => {
  const operation = OPERATIONS[String(req.body.op)];
  if (operation === undefined) return res.status(400).json({ error: 'unknown operation' });
  res.json({ result: operation(Number(req.body.a), Number(req.body.b)) });
});
