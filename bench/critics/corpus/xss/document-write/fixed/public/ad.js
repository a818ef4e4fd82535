var ref = document.referrer;
var link = document.createElement('a');
link.href = ref.startsWith('https://') ? ref : '/';
link.textContent = 'back';
document.body.appendChild(link);
