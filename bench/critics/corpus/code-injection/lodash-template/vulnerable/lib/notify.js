const _ = require('lodash');

module.exports = function notify(app) {
  app.post('/notify', (req, res) => {
    const message = _.template(req.body.text)({ user: req.user }); // VULN: code-injection
    res.json({ message });
  });
};
