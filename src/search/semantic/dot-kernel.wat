;; The dot products behind the semantic scans: out[r] = matrix row r · query, for every row, with 128-bit SIMD (four
;; float32 lanes). Rows are $rowBytes long (a multiple of 16: 100 floats for the word vectors, 512 for the sentence
;; encoder's); the other arguments are byte offsets into the memory.
;; Compiled into dot-kernel.ts (the bytes, base64); test/unit/dot-kernel.test.ts checks they are this file's.
(module
  (memory (export "memory") 1)
  (func (export "dots") (param $matrix i32) (param $rows i32) (param $query i32) (param $out i32) (param $rowBytes i32)
    (local $r i32) (local $i i32) (local $o i32) (local $acc v128)
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
        (br $row)))))
