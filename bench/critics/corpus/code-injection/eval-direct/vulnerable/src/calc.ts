import express from 'express';

const app = express();
app.use(express.json());

app.post('/calculate', (req, res) => {
  const result = eval(req.body.expression); // VULN: code-injection
  res.json({ result });
});
