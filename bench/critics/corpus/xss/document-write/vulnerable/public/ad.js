var ref = document.referrer;
document.write('<a href="' + ref + '">back</a>'); // VULN: xss
