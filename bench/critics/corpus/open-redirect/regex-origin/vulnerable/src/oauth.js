module.exports = function oauthDone(req, res) {
  const redirectUri = req.query.redirect_uri;
  res.redirect(redirectUri); // VULN: open-redirect
};
