// The Tandem router dashboard: polls /dashboard/data every second and redraws with Chart.js.
// window.tandemDashboard is what the browser test reads (updates done, points per chart).
(function () {
  'use strict';
  const COLORS = ['#2f6fdb', '#e8590c', '#2b8a3e', '#9c36b5', '#c92a2a', '#0b7285', '#5c940d', '#862e9c'];
  const state = { updates: 0, errors: 0, charts: {} };
  window.tandemDashboard = state;

  function lineChart(id, series, yTitle) {
    return new Chart(document.getElementById(id), {
      type: 'line',
      data: { labels: [], datasets: series.map((name, i) => dataset(name, i)) },
      options: {
        animation: false, responsive: true, maintainAspectRatio: false, spanGaps: true,
        interaction: { mode: 'index', intersect: false },
        scales: { x: { ticks: { maxTicksLimit: 8 } }, y: { beginAtZero: true, title: { display: !!yTitle, text: yTitle } } },
        plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } },
        elements: { point: { radius: 0 } }
      }
    });
  }

  function dataset(name, i) {
    return { label: name, data: [], borderColor: COLORS[i % COLORS.length], backgroundColor: COLORS[i % COLORS.length], borderWidth: 2, tension: 0.2 };
  }

  state.charts.load = lineChart('chart-load', ['requests/s', 'in flight', 'queued'], '');
  state.charts.engines = lineChart('chart-engines', [], 'requests');
  state.charts.ttft = lineChart('chart-ttft', ['p50', 'p90', 'p99'], 'ms');
  state.charts.tpot = lineChart('chart-tpot', ['p50', 'p90', 'p99'], 'ms');

  function time(t) {
    return new Date(t).toLocaleTimeString([], { hour12: false });
  }

  function setSeries(chart, labels, columns) {
    chart.data.labels = labels;
    columns.forEach((values, i) => { chart.data.datasets[i].data = values; });
    chart.update('none');
  }

  function fmtMs(v) {
    return v === null || v === undefined ? '-' : (v >= 1000 ? (v / 1000).toFixed(2) + ' s' : v.toFixed(1) + ' ms');
  }

  function text(tag, value, cls) {
    const el = document.createElement(tag);
    el.textContent = value === null || value === undefined ? '' : String(value);
    if (cls) el.className = cls;
    return el;
  }

  function drawEngines(fleet) {
    const body = document.querySelector('#engines tbody');
    body.replaceChildren();
    for (const e of fleet.engines) {
      const state = e.drained ? (e.state === 'READY' ? 'DRAINED' : e.state + ' (drained)') : e.state;
      const g = e.gauges || {};
      const tr = document.createElement('tr');
      tr.dataset.engine = e.id;
      tr.append(text('td', e.id), text('td', (e.role || '').toLowerCase()),
        text('td', state, 'state-' + (e.drained ? 'DRAINED' : e.state)), text('td', e.generation),
        text('td', e.inFlight), text('td', g.running), text('td', g.waiting),
        text('td', g.kvTotalPages ? g.kvFreePages + ' / ' + g.kvTotalPages : ''), text('td', e.url));
      body.append(tr);
    }
  }

  function drawErrors(errors) {
    const body = document.querySelector('#errors tbody');
    body.replaceChildren();
    for (const e of errors.slice(0, 12)) {
      const tr = document.createElement('tr');
      tr.append(text('td', time(e.time)), text('td', e.status), text('td', e.cause), text('td', e.message));
      body.append(tr);
    }
  }

  function draw(data) {
    const s = data.series;
    const labels = s.map(p => time(p.t));
    setSeries(state.charts.load, labels, [s.map(p => p.rps), s.map(p => p.inFlight), s.map(p => p.queued)]);
    setSeries(state.charts.ttft, labels, ['p50', 'p90', 'p99'].map(k => s.map(p => p.ttft[k])));
    setSeries(state.charts.tpot, labels, ['p50', 'p90', 'p99'].map(k => s.map(p => p.tpot[k])));
    const ids = data.fleet.engines.map(e => String(e.id));
    const chart = state.charts.engines;
    chart.data.datasets = ids.map((id, i) => Object.assign(dataset('engine ' + id, i), { data: s.map(p => p.engines[id] ?? null) }));
    chart.data.labels = labels;
    chart.update('none');
    drawEngines(data.fleet);
    drawErrors(data.errors);
    const last = s.length ? s[s.length - 1] : null;
    document.getElementById('about').textContent = data.about.mode + ' mode, model ' + data.about.model;
    document.getElementById('rps').textContent = last ? last.rps.toFixed(1) : '-';
    document.getElementById('inflight').textContent = data.fleet.inFlightTotal;
    document.getElementById('admission').textContent = data.fleet.admission.running + ' / ' + data.fleet.admission.queued;
    document.getElementById('ttft').textContent = last ? fmtMs(last.ttft.p90) : '-';
    document.getElementById('tpot').textContent = last ? fmtMs(last.tpot.p90) : '-';
  }

  async function poll() {
    const status = document.getElementById('status');
    try {
      const resp = await fetch('data', { cache: 'no-store', credentials: 'same-origin' });
      if (!resp.ok) throw new Error('HTTP ' + resp.status);
      draw(await resp.json());
      state.updates++;
      status.textContent = 'live, updated ' + new Date().toLocaleTimeString([], { hour12: false });
      status.classList.remove('stale');
    } catch (e) {
      state.errors++;
      status.textContent = 'no data: ' + e.message;
      status.classList.add('stale');
    } finally {
      setTimeout(poll, 1000);
    }
  }
  poll();
})();
