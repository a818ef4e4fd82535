var PARENT_ORIGIN = 'https://app.example.com';
var ACTIONS = { refresh: function () { location.reload(); }, close: function () { window.close(); } };

window.addEventListener('message', function (event) {
  if (event.origin !== PARENT_ORIGIN) return;
  var command = event.data;
  if (command && command.type === 'run' && Object.hasOwn(ACTIONS, command.action)) {
    setTimeout(ACTIONS[command.action], 0);
  }
});
