def f
  puts 1
  x = 2
end
