
(function () {
  function key(cell) {
    if (!cell) { return ''; }
    var v = cell.getAttribute('data-sort');
    if (v !== null && v !== '' && !isNaN(Number(v))) { return Number(v); }
    return cell.textContent.trim();
  }
  var heads = document.querySelectorAll('table.sortable thead th');
  Array.prototype.forEach.call(heads, function (th) {
    th.style.cursor = 'pointer';
    th.title = 'click to sort';
    th.addEventListener('click', function () {
      var table = th.closest('table');
      var body = table.tBodies[0];
      var col = Array.prototype.indexOf.call(th.parentNode.children, th);
      var dir = th.getAttribute('data-dir') === 'asc' ? 'desc' : 'asc';
      th.setAttribute('data-dir', dir);
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = key(a.cells[col]);
        var y = key(b.cells[col]);
        var c = (typeof x === 'number' && typeof y === 'number') ? x - y : String(x).localeCompare(String(y));
        return dir === 'asc' ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
})();
