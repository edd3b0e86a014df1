module example.test/graph

go 1.26
