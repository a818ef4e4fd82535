const _ = require('lodash');

const compiled = _.template('Hello <%- user.name %>: <%- text %>');

module.exports = function notify(app) {
  app.post('/notify', (req, res) => {
    res.json({ message: compiled({ user: req.user, text: String(req.body.text) }) });
  });
};
