;; The dot products behind the semantic scans: out[r] = matrix row r · query, for every row, with 128-bit SIMD (four
;; float32 lanes). Rows are $rowBytes long (a multiple of 16: 100 floats for the word vectors, 512 for the sentence
;; encoder's); the other arguments are byte offsets into the memory. dots_f64 gives the listed rows' products in double
;; precision, each summed in order from its first float to its last as a JavaScript loop sums it (every float32 product
;; is exact in a double, so the results are that loop's, bit for bit), two rows at a time.
;; The memory is the caller's, shared (a SharedArrayBuffer): a matrix filled on one thread can be scanned on another.
;; Compiled into dot-kernel.ts (the bytes, base64); test/unit/dot-kernel.test.ts checks they are this file's.
(module
  (import "env" "memory" (memory 1 65536 shared))
  (func (export "dots") (param $matrix i32) (param $rows i32) (param $query i32) (param $out i32) (param $rowBytes i32)
    (local $r i32) (local $i i32) (local $o i32) (local $acc v128)
    (local $o1 i32) (local $o2 i32) (local $o3 i32) (local $q v128) (local $acc1 v128) (local $acc2 v128) (local $acc3 v128)
    ;; Four rows at a time, each in its own accumulator: the same additions in the same order for every row as one row at
    ;; a time (the same floats, bit for bit), but four independent chains of additions instead of one, and each query
    ;; load serves four rows.
    (block $quads
      (loop $quad
        (br_if $quads (i32.gt_u (i32.add (local.get $r) (i32.const 4)) (local.get $rows)))
        (local.set $acc (v128.const f32x4 0 0 0 0))
        (local.set $acc1 (v128.const f32x4 0 0 0 0))
        (local.set $acc2 (v128.const f32x4 0 0 0 0))
        (local.set $acc3 (v128.const f32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (local.set $o (i32.add (local.get $matrix) (i32.mul (local.get $r) (local.get $rowBytes))))
        (local.set $o1 (i32.add (local.get $o) (local.get $rowBytes)))
        (local.set $o2 (i32.add (local.get $o1) (local.get $rowBytes)))
        (local.set $o3 (i32.add (local.get $o2) (local.get $rowBytes)))
        (loop $lanes
          (local.set $q (v128.load (i32.add (local.get $query) (local.get $i))))
          (local.set $acc (f32x4.add (local.get $acc) (f32x4.mul (v128.load (i32.add (local.get $o) (local.get $i))) (local.get $q))))
          (local.set $acc1 (f32x4.add (local.get $acc1) (f32x4.mul (v128.load (i32.add (local.get $o1) (local.get $i))) (local.get $q))))
          (local.set $acc2 (f32x4.add (local.get $acc2) (f32x4.mul (v128.load (i32.add (local.get $o2) (local.get $i))) (local.get $q))))
          (local.set $acc3 (f32x4.add (local.get $acc3) (f32x4.mul (v128.load (i32.add (local.get $o3) (local.get $i))) (local.get $q))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br_if $lanes (i32.lt_u (local.get $i) (local.get $rowBytes))))
        (f32.store (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $acc)) (f32x4.extract_lane 1 (local.get $acc)))
            (f32.add (f32x4.extract_lane 2 (local.get $acc)) (f32x4.extract_lane 3 (local.get $acc)))))
        (f32.store offset=4 (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $acc1)) (f32x4.extract_lane 1 (local.get $acc1)))
            (f32.add (f32x4.extract_lane 2 (local.get $acc1)) (f32x4.extract_lane 3 (local.get $acc1)))))
        (f32.store offset=8 (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $acc2)) (f32x4.extract_lane 1 (local.get $acc2)))
            (f32.add (f32x4.extract_lane 2 (local.get $acc2)) (f32x4.extract_lane 3 (local.get $acc2)))))
        (f32.store offset=12 (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $acc3)) (f32x4.extract_lane 1 (local.get $acc3)))
            (f32.add (f32x4.extract_lane 2 (local.get $acc3)) (f32x4.extract_lane 3 (local.get $acc3)))))
        (local.set $r (i32.add (local.get $r) (i32.const 4)))
        (br $quad)))
    ;; The last rows (fewer than four), one at a time.
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $acc (v128.const f32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (local.set $o (i32.add (local.get $matrix) (i32.mul (local.get $r) (local.get $rowBytes))))
        (loop $lane
          (local.set $acc
            (f32x4.add (local.get $acc)
              (f32x4.mul (v128.load (i32.add (local.get $o) (local.get $i)))
                         (v128.load (i32.add (local.get $query) (local.get $i))))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br_if $lane (i32.lt_u (local.get $i) (local.get $rowBytes))))
        (f32.store (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $acc)) (f32x4.extract_lane 1 (local.get $acc)))
            (f32.add (f32x4.extract_lane 2 (local.get $acc)) (f32x4.extract_lane 3 (local.get $acc)))))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $row))))
  (func (export "dots_f64") (param $matrix i32) (param $list i32) (param $count i32) (param $query i32) (param $out i32) (param $dims i32)
    (local $k i32) (local $i i32) (local $a i32) (local $b i32) (local $q i32) (local $x f64) (local $y f64)
    (block $done
      (loop $pair
        (br_if $done (i32.ge_u (local.get $k) (local.get $count)))
        ;; Row $a (float32s) and row $b, the same row again when $a is the list's last.
        (local.set $a (i32.add (local.get $matrix)
          (i32.mul (i32.load (i32.add (local.get $list) (i32.shl (local.get $k) (i32.const 2)))) (i32.shl (local.get $dims) (i32.const 2)))))
        (local.set $b (local.get $a))
        (if (i32.lt_u (i32.add (local.get $k) (i32.const 1)) (local.get $count))
          (then
            (local.set $b (i32.add (local.get $matrix)
              (i32.mul (i32.load (i32.add (local.get $list) (i32.shl (i32.add (local.get $k) (i32.const 1)) (i32.const 2))))
                       (i32.shl (local.get $dims) (i32.const 2)))))))
        (local.set $x (f64.const 0))
        (local.set $y (f64.const 0))
        (local.set $i (i32.const 0))
        (local.set $q (local.get $query))
        (loop $lane
          (local.set $x (f64.add (local.get $x) (f64.mul (f64.promote_f32 (f32.load (local.get $a))) (f64.load (local.get $q)))))
          (local.set $y (f64.add (local.get $y) (f64.mul (f64.promote_f32 (f32.load (local.get $b))) (f64.load (local.get $q)))))
          (local.set $a (i32.add (local.get $a) (i32.const 4)))
          (local.set $b (i32.add (local.get $b) (i32.const 4)))
          (local.set $q (i32.add (local.get $q) (i32.const 8)))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $lane (i32.lt_u (local.get $i) (local.get $dims))))
        (f64.store (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 3))) (local.get $x))
        (if (i32.lt_u (i32.add (local.get $k) (i32.const 1)) (local.get $count))
          (then (f64.store (i32.add (local.get $out) (i32.shl (i32.add (local.get $k) (i32.const 1)) (i32.const 3))) (local.get $y))))
        (local.set $k (i32.add (local.get $k) (i32.const 2)))
        (br $pair))))
  ;; dots for the listed rows only (distinct row numbers), each product written at out[row]: the same floats as dots.
  (func (export "dots_listed") (param $matrix i32) (param $list i32) (param $count i32) (param $query i32) (param $out i32) (param $rowBytes i32)
    (local $k i32) (local $r i32) (local $i i32) (local $o i32) (local $acc v128)
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $k) (local.get $count)))
        (local.set $r (i32.load (i32.add (local.get $list) (i32.shl (local.get $k) (i32.const 2)))))
        (local.set $acc (v128.const f32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (local.set $o (i32.add (local.get $matrix) (i32.mul (local.get $r) (local.get $rowBytes))))
        (loop $lane
          (local.set $acc
            (f32x4.add (local.get $acc)
              (f32x4.mul (v128.load (i32.add (local.get $o) (local.get $i)))
                         (v128.load (i32.add (local.get $query) (local.get $i))))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br_if $lane (i32.lt_u (local.get $i) (local.get $rowBytes))))
        (f32.store (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $acc)) (f32x4.extract_lane 1 (local.get $acc)))
            (f32.add (f32x4.extract_lane 2 (local.get $acc)) (f32x4.extract_lane 3 (local.get $acc)))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $row))))
  ;; The coarse scan: every row of int8s ($dims a multiple of 16) times the query in int16s, summed exactly in int32
  ;; (at most 512 × 127 × 32767 in all, below 2^31).
  (func (export "dots_i8") (param $matrix i32) (param $rows i32) (param $query i32) (param $out i32) (param $dims i32)
    (local $r i32) (local $i i32) (local $o i32) (local $v v128) (local $acc v128)
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (local.set $o (i32.add (local.get $matrix) (i32.mul (local.get $r) (local.get $dims))))
        (loop $lane
          (local.set $v (v128.load (i32.add (local.get $o) (local.get $i))))
          (local.set $acc (i32x4.add (local.get $acc)
            (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $v))
                               (v128.load (i32.add (local.get $query) (i32.shl (local.get $i) (i32.const 1)))))))
          (local.set $acc (i32x4.add (local.get $acc)
            (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $v))
                               (v128.load offset=16 (i32.add (local.get $query) (i32.shl (local.get $i) (i32.const 1)))))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br_if $lane (i32.lt_u (local.get $i) (local.get $dims))))
        (i32.store (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
            (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $row))))
)
