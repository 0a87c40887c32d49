-- Wakeup latency per file over rs.events_all, as the sched plugin's LatencyAnalysis measures it:
-- per file and pid, in event order (seq), from the first sched_wakeup/sched_wakeup_new after the pid
-- last ran to the sched_switch whose next_pid is the pid (a second wakeup does not restart the
-- clock). Each switch closes a segment (arrayCumSum, no window functions on 18.16); a segment with
-- a wakeup and a switch is one latency. Columns: file, count, min, max, sum, then the values at
-- ranks ceil(q * count) for q = 0.5, 0.9, 0.99 (the rank rule of ringscope's LogHistogram).
SELECT file, n, mn, mx, total,
       s[toUInt64(ceil(0.5 * n))], s[toUInt64(ceil(0.9 * n))], s[toUInt64(ceil(0.99 * n))]
FROM (
SELECT file, count() AS n, min(lat) AS mn, max(lat) AS mx, sum(lat) AS total, arraySort(groupArray(lat)) AS s
FROM (
  SELECT file, if(sw_ts >= wake_ts, sw_ts - wake_ts, 0) AS lat
  FROM (
    SELECT file, pid, seg, argMinIf(ts, seq, kind = 0) AS wake_ts, maxIf(ts, kind = 1) AS sw_ts,
           countIf(kind = 0) AS wakes, countIf(kind = 1) AS switches
    FROM (
      SELECT file, pid, ev.1 AS seq, ev.2 AS ts, ev.3 AS kind, seg
      FROM (
        SELECT file, pid, arraySort(x -> x.1, groupArray((seq, ts_ns, kind))) AS evs
        FROM (
          SELECT file, seq, ts_ns, toUInt8(name = 'sched_switch') AS kind,
                 toInt32(field_ints[indexOf(field_names, if(name = 'sched_switch', 'next_pid', 'pid'))]) AS pid
          FROM rs.events_all
          WHERE system = 'sched' AND name IN ('sched_wakeup', 'sched_wakeup_new', 'sched_switch')
            AND has(field_names, if(name = 'sched_switch', 'next_pid', 'pid'))
        )
        GROUP BY file, pid
      )
      ARRAY JOIN evs AS ev, arrayMap((c, x) -> c - x.3, arrayCumSum(arrayMap(x -> x.3, evs)), evs) AS seg
    )
    GROUP BY file, pid, seg
    HAVING wakes > 0 AND switches > 0
  )
)
GROUP BY file
)
ORDER BY file
