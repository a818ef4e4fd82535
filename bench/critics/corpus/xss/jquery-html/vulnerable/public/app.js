$(function () {
  const tab = decodeURIComponent(window.location.hash.substring(1));
  $('#title').html('Showing ' + tab); // VULN: xss
});
