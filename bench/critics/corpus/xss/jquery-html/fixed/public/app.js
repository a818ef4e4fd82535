$(function () {
  const tab = decodeURIComponent(window.location.hash.substring(1));
  $('#title').text('Showing ' + tab);
});
