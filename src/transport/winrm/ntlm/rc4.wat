;; RC4 key stream applied in place. Source of the bytes embedded in rc4-wasm.ts;
;; rebuild with: wat2wasm rc4.wat -o /dev/stdout | base64 -w0   (Debian package wabt)
;; Memory layout: S box at 0..255 (bytes), i at 256, j at 260 (i32), data from 1024.
(module
  (memory (export "memory") 1)
  (func (export "crypt") (param $len i32)
    (local $i i32) (local $j i32) (local $p i32) (local $end i32) (local $si i32) (local $sj i32)
    (local.set $i (i32.load (i32.const 256)))
    (local.set $j (i32.load (i32.const 260)))
    (local.set $p (i32.const 1024))
    (local.set $end (i32.add (i32.const 1024) (local.get $len)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $i (i32.and (i32.add (local.get $i) (i32.const 1)) (i32.const 255)))
        (local.set $si (i32.load8_u (local.get $i)))
        (local.set $j (i32.and (i32.add (local.get $j) (local.get $si)) (i32.const 255)))
        (local.set $sj (i32.load8_u (local.get $j)))
        (i32.store8 (local.get $i) (local.get $sj))
        (i32.store8 (local.get $j) (local.get $si))
        (i32.store8
          (local.get $p)
          (i32.xor
            (i32.load8_u (local.get $p))
            (i32.load8_u (i32.and (i32.add (local.get $si) (local.get $sj)) (i32.const 255)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $next)))
    (i32.store (i32.const 256) (local.get $i))
    (i32.store (i32.const 260) (local.get $j))))
