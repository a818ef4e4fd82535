module.exports = function oauthDone(req, res) {
  const redirectUri = req.query.redirect_uri;
  if (!/^https:\/\/(www\.)?example\.com(\/|$)/.test(redirectUri)) {
    return res.status(400).send('invalid redirect_uri');
  }
  res.redirect(redirectUri);
};
