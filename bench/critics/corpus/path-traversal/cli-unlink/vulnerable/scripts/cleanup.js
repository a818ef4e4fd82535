const fs = require('fs');

const target = process.argv[2];
fs.rmSync(target, { recursive: true, force: true }); // VULN: path-traversal
