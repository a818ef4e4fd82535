module.exports = (req, res) => {
  res.redirect('/');
};
