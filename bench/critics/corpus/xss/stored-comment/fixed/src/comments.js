const { Router } = require('express');
const escapeHtml = require('escape-html');
const { Comment } = require('./models');

const router = Router();

router.post('/posts/:id/comments', async (req, res) => {
  await Comment.create({ postId: req.params.id, body: req.body.body });
  res.redirect(303, '/posts/' + encodeURIComponent(req.params.id));
});

router.get('/posts/:id/comments.html', async (req, res) => {
  const comments = await Comment.findAll({ where: { postId: req.params.id } });
  res.send('<ul>' + comments.map((c) => `<li>${escapeHtml(c.body)}</li>`).join('') + '</ul>');
});

module.exports = router;
