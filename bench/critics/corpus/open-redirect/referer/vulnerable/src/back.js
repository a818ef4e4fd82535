module.exports = (req, res) => {
  res.redirect(req.headers.referer || '/'); // VULN: open-redirect
};
