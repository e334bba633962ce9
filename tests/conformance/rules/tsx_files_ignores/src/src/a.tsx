var x = <div/>;
