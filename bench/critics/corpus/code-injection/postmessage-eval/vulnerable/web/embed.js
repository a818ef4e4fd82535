window.addEventListener('message', function (event) {
  var command = event.data;
  if (command && command.type === 'run') {
    setTimeout(command.code, 0); // VULN: code-injection
  }
});
